// The API & MCP page and a Connected apps row's page, as HTML (docs/service.md, Pages): usage at a glance (two charts,
// the same figures as a table, the credits balance, the writes waiting) and Connected apps (every connection and API
// key as one kind of row); one row's facts, usage, audit trail and its Disconnect or Revoke form.
import {
  type AuditEntry, type ConnectedApp, type ConnectedAppDetail, type ConnectedAppsOverview, type EndedBecause, makesChanges,
  mayEnd, type PlatformChoice, type Surface, type UsageOfDay, type User
} from "@adgate/core"
import { formatWhen } from "./formatting.ts"
import { html, type Html, raw } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"
import { auditKindWords } from "./audit/auditKindWords.ts"
import { connectedAppLabel, connectedAppName } from "./connectedAppLabel.ts"
import { formatFigure, isoDay, renderBarChart, seriesColours, type ChartSeries } from "./usageChart.ts"
import type { WorkspaceView } from "./workspaceFrame.ts"

/** A time as the pages show it: ISO 8601 in UTC to the minute, machine-readable in <time>. */
export const timeOf = (at: number | null): Html =>
  at === null
    ? html`<span class="muted">never</span>`
    : html`<time datetime="${new Date(at).toISOString()}">${formatWhen(at)}</time>`

const surfaceWords: Readonly<Record<Surface, string>> = {
  mcp: "MCP server",
  rest: "REST API",
  both: "MCP server and REST API"
}

const platformWords = (platforms: PlatformChoice): string =>
  platforms === "all" ? "All connected platforms" : platforms.length === 0 ? "None" : platforms.join(", ")

const writeWords = (row: ConnectedApp): Html =>
  !makesChanges(row.scopes)
    ? html`<span class="muted">No write scopes</span>`
    : row.writeMode === "wait" ? html`Writes wait for approval` : html`Ordinary changes apply at once`

/** Why a row ended, in words (spec §States: Connection). */
export const endedWords: Readonly<Record<EndedBecause, string>> = {
  disconnected: "disconnected on this page",
  revoked: "the app disconnected itself",
  code_reused: "the code that created it was used twice",
  refresh_reused: "a spent refresh token was used again",
  app_removed: "the app was removed from the workspace",
  role_lost: "the approver lost the role it needs",
  expired: "365 days after approval",
  key_revoked: "revoked"
}

const statusOf = (row: ConnectedApp): Html =>
  row.status === "active"
    ? html`<span class="badge active">Active</span>`
    : html`<span class="badge ended">Ended</span> <span class="muted">${row.endedBecause === null ? "" : endedWords[row.endedBecause]}${row.endedAt === null ? "" : html`, ${timeOf(row.endedAt)}`}</span>`

const personOf = (user: User | null): Html => (user === null ? html`<span class="muted">a former member</span>` : html`${user.name}`)

const scopesOf = (row: ConnectedApp): Html => html`${row.scopes.map((s, i) => html`${i === 0 ? "" : " "}<code>${s}</code>`)}`

const kindWords = (row: ConnectedApp): string => (row.kind === "api_key" ? "API key" : "OAuth connection")

/** The series of a chart: the apps with usage in the window (most first), the rest folded into "Other apps". */
const chartSeries = (
  apps: ReadonlyArray<ConnectedApp>,
  usage: ReadonlyArray<UsageOfDay>,
  days: ReadonlyArray<number>,
  measure: "calls" | "credits"
): ReadonlyArray<ChartSeries> => {
  const dayIndex = new Map(days.map((d, i) => [d, i]))
  const used = apps.filter((a) => a[measure] > 0).sort((a, b) => b[measure] - a[measure])
  const shown = used.length > seriesColours ? used.slice(0, seriesColours - 1) : used
  const labels = disambiguated(shown)
  const series = shown.map((app) => ({ id: app.id as string, label: labels.get(app.id) ?? connectedAppName(app), values: days.map(() => 0) }))
  const other = { id: "", label: "Other apps", values: days.map(() => 0) }
  const byId = new Map(series.map((s) => [s.id, s]))
  for (const u of usage) {
    const i = dayIndex.get(u.day)
    if (i === undefined) continue
    const target = byId.get(u.credentialId) ?? other
    target.values[i] = (target.values[i] ?? 0) + u[measure]
  }
  return other.values.some((v) => v > 0) ? [...series, other] : series
}

/** Plain-text names of rows, with the owner added where two rows would read alike. */
const disambiguated = (rows: ReadonlyArray<ConnectedApp>): ReadonlyMap<string, string> => {
  const names = rows.map((r) => connectedAppName(r))
  return new Map(rows.map((r, i) => {
    const name = names[i]!
    return [r.id, names.filter((n) => n === name).length > 1 ? `${name} · ${r.owner?.name ?? "a former member"}` : name]
  }))
}

/** Every (day, app) with calls, as rows of a table: the charts' figures for a reader who cannot see them. */
const usageTable = (apps: ReadonlyArray<ConnectedApp>, usage: ReadonlyArray<UsageOfDay>): Html => {
  const names = disambiguated(apps)
  const rows = usage.filter((u) => u.calls > 0)
  const calls = rows.reduce((sum, u) => sum + u.calls, 0)
  const credits = rows.reduce((sum, u) => sum + u.credits, 0)
  return rows.length === 0
    ? html`<p class="muted">No tool calls in this period.</p>`
    : html`<div class="table-wrap"><table class="usage">
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">App</th><th scope="col" class="num">Tool calls</th><th scope="col" class="num">Credits</th></tr></thead>
<tbody>
${rows.map((u) => html`<tr><td>${isoDay(u.day)}</td><td>${names.get(u.credentialId) ?? u.credentialId}</td><td class="num">${formatFigure(u.calls)}</td><td class="num">${formatFigure(u.credits)}</td></tr>`)}
</tbody>
<tfoot><tr><th scope="row" colspan="2">Total</th><td class="num">${formatFigure(calls)}</td><td class="num">${formatFigure(credits)}</td></tr></tfoot>
</table></div>`
}

/** Both charts and their table, for the whole workspace or one row. */
const usageCharts = (idPrefix: string, overview: { readonly apps: ReadonlyArray<ConnectedApp>; readonly usage: ReadonlyArray<UsageOfDay>; readonly days: ReadonlyArray<number> }): Html =>
  html`<div class="charts">
${renderBarChart({ id: `${idPrefix}-credits`, title: "Credits per day", unit: "credits", days: overview.days, series: chartSeries(overview.apps, overview.usage, overview.days, "credits") })}
${renderBarChart({ id: `${idPrefix}-calls`, title: "Tool calls per day", unit: "tool calls", days: overview.days, series: chartSeries(overview.apps, overview.usage, overview.days, "calls") })}
</div>
<details class="figures-table">
<summary>The figures as a table</summary>
${usageTable(overview.apps, overview.usage)}
</details>`

export interface ApiMcpPageData {
  readonly overview: ConnectedAppsOverview
  readonly waiting: number
}

/** The API & MCP page's body. */
export const apiMcpBody = (view: WorkspaceView, data: ApiMcpPageData, notice: Html): Html => {
  const { overview } = data
  const ws = view.workspace.id
  const calls = overview.usage.reduce((sum, u) => sum + u.calls, 0)
  const credits = overview.usage.reduce((sum, u) => sum + u.credits, 0)
  return html`${notice}
<section aria-labelledby="usage-heading">
<h2 id="usage-heading">Usage at a glance</h2>
<p class="muted">The last ${overview.window.days.length} days (UTC), today included.</p>
<div class="figures">
<div class="figure"><span class="muted">Credits balance</span><strong id="credits-balance">${formatFigure(view.workspace.credits)}</strong></div>
<div class="figure"><span class="muted">Credits used</span><strong id="credits-used">${formatFigure(credits)}</strong></div>
<div class="figure"><span class="muted">Tool calls</span><strong id="tool-calls">${formatFigure(calls)}</strong></div>
<div class="figure"><span class="muted">Writes waiting for approval</span><strong id="writes-waiting">${formatFigure(data.waiting)}</strong>
<a href="${pagePaths.approvals(ws)}">${data.waiting === 0 ? "Write approvals" : data.waiting === 1 ? "Review it" : "Review them"}</a></div>
</div>
${usageCharts("usage", { apps: overview.apps, usage: overview.usage, days: overview.window.days })}
</section>
<section class="card" aria-labelledby="apps-heading">
<h2 id="apps-heading">Connected apps</h2>
<p class="muted">Every app connected through OAuth and every API key of ${view.workspace.name}. Open a row for its audit trail and to disconnect it:
a workspace admin can disconnect any row, an editor the ones they approved or created.</p>
${overview.apps.length === 0
  ? html`<p>No app is connected yet. Connect an AI host to the MCP server, or create an API key.</p>`
  : html`<div class="table-wrap"><table class="connected-apps">
<thead><tr><th scope="col">App</th><th scope="col">Approved or created</th><th scope="col">Scopes</th><th scope="col">Surface</th><th scope="col">Platforms</th>
<th scope="col">Writes</th><th scope="col">Last used</th><th scope="col" class="num">Credits (${overview.window.days.length} days)</th><th scope="col">Status</th></tr></thead>
<tbody>
${overview.apps.map((row) => html`<tr id="row-${row.id}">
<td><a href="${pagePaths.connectedApp(ws, row.id)}">${connectedAppLabel(row)}</a>${row.kind === "api_key" ? "" : html`<br><span class="muted">${kindWords(row)}</span>`}</td>
<td>${personOf(row.owner)}<br>${timeOf(row.createdAt)}</td>
<td>${scopesOf(row)}</td>
<td>${surfaceWords[row.surface]}</td>
<td>${platformWords(row.platforms)}</td>
<td>${writeWords(row)}</td>
<td>${timeOf(row.lastUsedAt)}</td>
<td class="num">${formatFigure(row.credits)}</td>
<td>${statusOf(row)}</td>
</tr>`)}
</tbody>
</table></div>`}
</section>`
}

const auditDetail = (view: WorkspaceView, entry: AuditEntry): Html => {
  const d = entry.detail
  const text = (key: string) => (typeof d[key] === "string" ? (d[key] as string) : null)
  const reason = text("reason")
  const requestId = text("requestId")
  const parts: Array<Html> = []
  if (text("tool") !== null) parts.push(html`<code>${text("tool")}</code>`)
  if (text("summary") !== null) parts.push(html`${text("summary")}`)
  if (reason !== null) parts.push(html`${entry.action === "connection.ended" && reason in endedWords ? endedWords[reason as EndedBecause] : reason}`)
  if (Array.isArray(d["scopes"])) parts.push(html`${(d["scopes"] as ReadonlyArray<unknown>).map((s, i) => html`${i === 0 ? "" : " "}<code>${String(s)}</code>`)}`)
  if (requestId !== null) parts.push(html`<a href="${pagePaths.approval(view.workspace.id, requestId)}">${requestId}</a>`)
  return html`${parts.map((p, i) => html`${i === 0 ? "" : raw(" · ")}${p}`)}`
}

/** A Connected apps row's page body: its facts, its Disconnect or Revoke, its usage and its audit trail. */
export const connectedAppBody = (
  view: WorkspaceView,
  detail: ConnectedAppDetail,
  actors: ReadonlyMap<string, User>,
  notice: Html
): Html => {
  const { app } = detail
  const ws = view.workspace.id
  const verb = app.kind === "api_key" ? "Revoke" : "Disconnect"
  const ending = app.status !== "active"
    ? ""
    : mayEnd(view.role, view.person.user.id, app)
      ? html`<form method="post" action="${pagePaths.endConnectedApp(ws, app.id)}" class="end-form">
<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">
<p>${app.kind === "api_key"
  ? "Revoking ends the key at once: every request with it is refused from then on."
  : "Disconnecting ends the connection at once: its refresh token stops working and every access token of it is refused."}
Changes it proposed that still wait for approval are withdrawn.</p>
<button type="submit" class="danger">${verb}</button>
</form>`
      : html`<p class="muted">${view.role === "viewer"
        ? `A viewer cannot ${verb.toLowerCase()} apps.`
        : `Only a workspace admin, or the editor who ${app.kind === "api_key" ? "created it" : "approved it"}, can ${verb.toLowerCase()} it.`}</p>`
  const calls = detail.usage.reduce((sum, u) => sum + u.calls, 0)
  return html`${notice}
<p><a href="${pagePaths.apiMcp(ws)}">← API &amp; MCP</a></p>
<section class="card" aria-labelledby="facts-heading">
<h2 id="facts-heading">${connectedAppLabel(app)}</h2>
<div class="table-wrap"><table class="facts">
<tbody>
<tr><th scope="row">Kind</th><td>${kindWords(app)}${app.clientId === null ? "" : html` <span class="muted">client id <code>${app.clientId}</code></span>`}</td></tr>
<tr><th scope="row">${app.kind === "api_key" ? "Created by" : "Approved by"}</th><td>${personOf(app.owner)}, ${timeOf(app.createdAt)}</td></tr>
<tr><th scope="row">Workspace</th><td>${view.workspace.name}</td></tr>
<tr><th scope="row">Scopes</th><td>${scopesOf(app)}</td></tr>
<tr><th scope="row">Surface</th><td>${surfaceWords[app.surface]}</td></tr>
<tr><th scope="row">Platforms</th><td>${platformWords(app.platforms)}</td></tr>
<tr><th scope="row">Writes</th><td>${writeWords(app)}</td></tr>
<tr><th scope="row">Last used</th><td>${timeOf(app.lastUsedAt)}</td></tr>
<tr><th scope="row">Last ${detail.window.days.length} days</th><td><span id="app-credits">${formatFigure(app.credits)}</span> credits, ${formatFigure(calls)} tool calls</td></tr>
<tr><th scope="row">Status</th><td>${statusOf(app)}</td></tr>
</tbody>
</table></div>
${ending}
</section>
<section aria-labelledby="app-usage-heading">
<h2 id="app-usage-heading">Usage</h2>
${usageCharts("app-usage", { apps: [app], usage: detail.usage, days: detail.window.days })}
</section>
<section class="card" aria-labelledby="audit-heading">
<h2 id="audit-heading">Audit trail</h2>
${detail.audit.length === 0
  ? html`<p class="muted">No entries yet.</p>`
  : html`<div class="table-wrap"><table class="audit-trail">
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th><th scope="col">Details</th></tr></thead>
<tbody>
${detail.audit.map((e) => html`<tr><td>${timeOf(e.at)}</td><td>${auditKindWords[e.action]}</td>
<td>${e.actorId === null ? html`<span class="muted">the service</span>` : personOf(actors.get(e.actorId) ?? null)}</td><td>${auditDetail(view, e)}</td></tr>`)}
</tbody>
</table></div>`}
<p><a href="${pagePaths.audit(ws, { app: app.id })}">All entries about this app in the audit log</a></p>
</section>`
}
