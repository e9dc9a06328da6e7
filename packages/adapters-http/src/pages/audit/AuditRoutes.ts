// The Audit log page (docs/service.md, Pages: Audit log; spec §Events): a workspace's entries, newest first, a page
// at a time, filterable by app (a connection, an API key or a client) and by kind; each entry's kind in words, who
// acted (a person, or the service), the app and the details a person needs. Every member reads it.
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest } from "effect/http"
import {
  appIdentity, type AuditAction, AuditAction as AuditActionSchema, type Client, type AuditEntry, AuditLog, ApiKeyStore, ClientStore, ConnectionStore,
  Directory, numberedPage, type UserId
} from "@adgate/core"
import { type PortsOf, withPorts } from "@adgate/answers"
import { RequestId } from "../../security.ts"
import { People } from "../../people/People.ts"
import { clientLabel } from "../appLabel.ts"
import { html, type Html, renderErrorPage } from "../layout.ts"
import { pagePaths } from "../pagePaths.ts"
import { auditKindWords } from "./auditKindWords.ts"
import { renderWorkspacePage, withWorkspace, type WorkspaceView } from "../workspaceFrame.ts"
import { formatWhen } from "../formatting.ts"

export const auditPageSize = 50
/** The last page one can ask for: beyond it, narrow by app or kind. */
export const maxAuditPage = 1000

export { auditKindWords } from "./auditKindWords.ts"

/** Groups of kinds the filter offers beside each single kind. */
export const auditKindGroups = {
  connections: { label: "Connections", actions: ["connection.approved", "connection.declined", "connection.ended"] },
  writes: {
    label: "Writes", actions: [
      "write_request.queued", "write_request.approved", "write_request.declined", "write_request.executed",
      "write_request.failed", "write_request.expired", "write_request.withdrawn", "tool.write_applied"
    ]
  },
  keys: { label: "API keys", actions: ["api_key.created", "api_key.revoked"] },
  apps: { label: "Own apps", actions: ["app.registered", "app.removed"] },
  tasks: {
    label: "Tasks", actions: ["task.started", "task.planned", "task.waiting_for_approval", "task.completed", "task.failed", "task.cancelled"]
  },
  settings: { label: "Settings", actions: ["guardrails.changed", "member.role_changed", "workspace.plan_changed", "credits.set"] }
} as const satisfies Record<string, { readonly label: string; readonly actions: ReadonlyArray<AuditAction> }>

const endReasonWords: Readonly<Record<string, string>> = {
  disconnected: "disconnected by a person",
  revoked: "revoked by the app itself",
  code_reused: "its authorization code was used twice (possible theft)",
  refresh_reused: "a spent refresh token was reused (possible theft)",
  role_lost: "the person who approved it lost the role",
  app_removed: "the app was removed from the workspace",
  expired: "a year old",
  key_revoked: "the API key was revoked",
  credential_unknown: "the credential no longer exists",
  withdrawn_by_app: "withdrawn by the app that asked",
  cancelled: "Cancel on the consent page",
  no_permission_approved: "no permission was approved"
}

/** The kinds a `kind` filter names: every kind (""), a group's, or one; "unknown" for anything else. */
const actionsOfKind = (kind: string): ReadonlyArray<AuditAction> | null | "unknown" => {
  if (kind === "") return null
  if (Object.hasOwn(auditKindGroups, kind)) return auditKindGroups[kind as keyof typeof auditKindGroups].actions
  const one = AuditActionSchema.literals.find((a) => a === kind)
  return one === undefined ? "unknown" : [one]
}

/** The query's filters and page; a value the page does not know is refused with a sentence. */
const auditQuery = (request: HttpServerRequest.HttpServerRequest) => {
  const params = new URL(request.url, "http://x").searchParams
  const app = (params.get("app") ?? "").trim()
  const kind = params.get("kind") ?? ""
  const page = params.get("page") ?? "1"
  if (app.length > 512) return { problem: "The app filter is too long." } as const
  const actions = actionsOfKind(kind)
  // Fixed words: nothing of the URL is said on the page (a link cannot put a sentence of its own there).
  if (actions === "unknown") return { problem: "There is no such kind of entry to filter by." } as const
  if (!/^[1-9][0-9]{0,5}$/.test(page) || Number(page) > maxAuditPage) return { problem: `The page must be a number from 1 to ${maxAuditPage}.` } as const
  return { app: app === "" ? null : app, kind, actions, page: Number(page) } as const
}

/** The workspace's apps by every id an entry may name: connections, API keys and its own OAuth apps. */
const appDirectory = Effect.fnUntraced(function* (workspaceId: WorkspaceView["workspace"]["id"]) {
  const [connections, keys, ownApps] = yield* Effect.all([
    (yield* ConnectionStore).listByWorkspace(workspaceId),
    (yield* ApiKeyStore).listByWorkspace(workspaceId),
    (yield* ClientStore).listByWorkspace(workspaceId)
  ])
  const clients = yield* ClientStore
  const names = new Map<string, { readonly label: Html; readonly option: string }>()
  const clientsById = new Map<string, Client | null>()
  for (const app of ownApps) clientsById.set(app.clientId, app)
  for (const c of connections) {
    if (!clientsById.has(c.clientId)) clientsById.set(c.clientId, Option.getOrNull(yield* clients.find(c.clientId)))
  }
  const labelOf = (client: Client | null): Html => client === null ? html`<span class="muted">an app no longer known</span>` : clientLabel(client)
  const nameOf = (client: Client | null, clientId: string): string => client === null ? clientId : appIdentity(client).name ?? clientId
  for (const [clientId, client] of clientsById) {
    names.set(clientId, { label: labelOf(client), option: `App “${nameOf(client, clientId)}”` })
  }
  for (const c of connections) {
    const client = clientsById.get(c.clientId) ?? null
    names.set(c.id, {
      label: html`${labelOf(client)} <span class="muted">(connection ${c.id})</span>`,
      option: `Connection of “${nameOf(client, c.clientId)}” (${c.id})`
    })
  }
  for (const k of keys) {
    names.set(k.id, { label: html`API key <strong>“${k.name}”</strong> <span class="muted">(${k.id})</span>`, option: `API key “${k.name}” (${k.id})` })
  }
  return names
})

type AppNames = Effect.Success<ReturnType<typeof appDirectory>>

/** The app an entry is about: its connection, else its API key (detail.apiKeyId), else its client. */
const appOf = (entry: AuditEntry, apps: AppNames): Html => {
  const key = typeof entry.detail["apiKeyId"] === "string" ? entry.detail["apiKeyId"] : null
  const id = entry.connectionId ?? key ?? entry.clientId
  if (id === null) return html`<span class="muted">—</span>`
  return apps.get(id)?.label ?? html`<code>${id}</code>`
}

const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : JSON.stringify(v ?? null))
const list = (v: unknown): string => (Array.isArray(v) ? v.map(text).join(", ") : text(v))

/** The settings before → after, naming only what changed. */
const changedFields = (before: unknown, after: unknown): Html => {
  if (typeof before !== "object" || typeof after !== "object" || before === null || after === null)
    return html`${text(before)} → ${text(after)}`
  const b = before as Record<string, unknown>
  const a = after as Record<string, unknown>
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
  return keys.length === 0 ? html`no change` : html`${keys.map((k, i) => html`${i === 0 ? "" : "; "}${k}: ${list(b[k] ?? null)} → ${list(a[k] ?? null)}`)}`
}

/** The details a person needs for each kind of entry. */
const detailOf = (view: WorkspaceView, entry: AuditEntry, people: ReadonlyMap<string, string>): Html => {
  const d = entry.detail
  const request = typeof d["requestId"] === "string"
    ? html`<a href="${pagePaths.approval(view.workspace.id, d["requestId"])}">${d["requestId"]}</a>`
    : ""
  const tool = d["tool"] === null || d["tool"] === undefined ? "" : html`<code>${text(d["tool"])}</code> `
  switch (entry.action) {
    case "connection.approved":
      return html`Scopes: ${list(d["scopes"])}; surface: ${text(d["surface"])}; platforms: ${list(d["platforms"])}; writes: ${d["writeMode"] === "apply" ? "apply at once" : "wait for approval"}`
    case "connection.declined":
      return html`${endReasonWords[text(d["reason"])] ?? text(d["reason"])}; it asked for ${text(d["scopesAsked"])}`
    case "connection.ended":
      return html`Ended: ${endReasonWords[text(d["reason"])] ?? text(d["reason"])}`
    case "tool.write_applied":
      return html`${tool}${d["summary"] === null ? "" : html`${text(d["summary"])} `}(platform status ${text(d["providerStatus"])})${request === "" ? "" : html`; request ${request}`}`
    case "write_request.queued":
      return html`${tool}${d["summary"] === null ? "" : html`${text(d["summary"])} `}— waits for ${d["reason"] === "person_decision" ? "a person's decision" : "approval"}; request ${request}`
    case "write_request.approved":
    case "write_request.declined":
    case "write_request.expired":
      return html`${tool}request ${request}`
    case "write_request.executed":
      return html`${tool}request ${request}; platform status ${text(d["providerStatus"])}`
    case "write_request.failed":
      return html`${tool}request ${request}; ${d["providerStatus"] === null ? "the platform was not called" : `platform status ${text(d["providerStatus"])}`}${d["message"] === null || d["message"] === undefined ? "" : html`: ${text(d["message"])}`}`
    case "write_request.withdrawn":
      return html`${tool}request ${request}; ${endReasonWords[text(d["reason"])] ?? text(d["reason"])}`
    case "api_key.created":
      return html`“${text(d["name"])}”; scopes: ${list(d["scopes"])}; tool writes: ${d["toolWrites"] === "apply" ? "apply at once" : "wait for approval"}`
    case "api_key.revoked":
      return html`<code>${text(d["apiKeyId"])}</code>`
    case "task.started":
    case "task.planned":
    case "task.waiting_for_approval":
    case "task.completed":
    case "task.cancelled":
      return html`Task <code>${text(d["taskId"])}</code>`
    case "task.failed":
      return html`Task <code>${text(d["taskId"])}</code>: ${list(d["reasons"])}`
    case "guardrails.changed":
    case "workspace.plan_changed":
    case "credits.set":
      return html`${changedFields(d["before"], d["after"])}${entry.action === "credits.set" ? html` (${text(d["reason"])})` : ""}`
    case "member.role_changed":
      return html`${people.get(text(d["userId"])) ?? text(d["userId"])}: ${text(d["before"] ?? "not a member")} → ${text(d["after"] ?? "not a member")}`
    case "app.registered":
      return html`“${text(d["name"])}” (${text(d["authMethod"]) === "none" ? "public app, PKCE" : "server app"}); redirect URIs: ${list(d["redirectUris"])}`
    case "app.removed":
      return html`“${text(d["name"])}”`
  }
}

const kindFilter = (selected: string): Html =>
  html`<select id="kind" name="kind">
<option value="">All kinds</option>
<optgroup label="Groups">
${Object.entries(auditKindGroups).map(([id, g]) => html`<option value="${id}"${id === selected ? html` selected` : ""}>${g.label}</option>`)}
</optgroup>
<optgroup label="One kind">
${AuditActionSchema.literals.map((a) => html`<option value="${a}"${a === selected ? html` selected` : ""}>${auditKindWords[a]}</option>`)}
</optgroup>
</select>`

const appFilter = (apps: AppNames, selected: string | null): Html =>
  html`<select id="app" name="app">
<option value="">All apps</option>
${[...apps].map(([id, app]) => html`<option value="${id}"${id === selected ? html` selected` : ""}>${app.option}</option>`)}
${selected !== null && !apps.has(selected) ? html`<option value="${selected}" selected>An app not in this workspace</option>` : ""}
</select>`

const auditPage = Effect.fnUntraced(function* (view: WorkspaceView, request: HttpServerRequest.HttpServerRequest) {
  const query = auditQuery(request)
  if ("problem" in query) {
    const requestId = yield* Effect.service(RequestId)
    return renderErrorPage({ status: 400, title: "This filter is not valid", message: query.problem, returnTo: pagePaths.audit(view.workspace.id), requestId })
  }
  const entries = yield* (yield* AuditLog).page(view.workspace.id, { app: query.app, actions: query.actions }, numberedPage(query.page, auditPageSize))
  const shown = entries.slice(0, auditPageSize)
  const apps = yield* appDirectory(view.workspace.id)
  const directory = yield* Directory
  const people = new Map<string, string>()
  const ids = new Set(shown.flatMap((e) => [e.actorId, typeof e.detail["userId"] === "string" ? e.detail["userId"] : null]))
  for (const id of ids) {
    if (id === null || !id.startsWith("usr_")) continue
    const user = Option.getOrNull(yield* directory.user(id as UserId))
    if (user !== null) people.set(id, user.name)
  }
  const at = (page: number) => pagePaths.audit(view.workspace.id, {
    ...(query.app === null ? {} : { app: query.app }), ...(query.kind === "" ? {} : { kind: query.kind }), ...(page === 1 ? {} : { page })
  })
  const previous = query.page > 1 ? at(query.page - 1) : null
  const next = entries.length > auditPageSize && query.page < maxAuditPage ? at(query.page + 1) : null
  return renderWorkspacePage({
    view, section: "audit", title: "Audit log",
    body: html`<form method="get" action="${pagePaths.audit(view.workspace.id)}" class="actions filter card">
<label for="app">App</label>
${appFilter(apps, query.app)}
<label for="kind">Kind</label>
${kindFilter(query.kind)}
<button type="submit" class="secondary small">Show</button>
</form>
${shown.length === 0
  ? html`<p class="muted">${query.page === 1 ? "No entry matches." : "No more entries."}</p>`
  : html`<div class="table-wrap"><table class="audit">
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th><th scope="col">App</th><th scope="col">Details</th></tr></thead>
<tbody>
${shown.map((entry) => html`<tr data-kind="${entry.action}">
<td>${formatWhen(entry.at)}</td>
<td>${auditKindWords[entry.action]}</td>
<td>${entry.actorId === null ? html`<span class="muted">the service</span>` : people.get(entry.actorId) ?? html`<code>${entry.actorId}</code>`}</td>
<td>${appOf(entry, apps)}</td>
<td>${detailOf(view, entry, people)}</td>
</tr>`)}
</tbody>
</table></div>`}
${previous === null && next === null ? "" : html`<nav class="actions pager" aria-label="Pages">
${previous === null ? "" : html`<a class="button secondary small" href="${previous}" rel="prev">Newer</a>`}
${next === null ? "" : html`<a class="button secondary small" href="${next}" rel="next">Older</a>`}
</nav>`}`
  })
})

/** What the audit page runs on: the frame's People and the stores the page reads. */
const auditPortServices = [People, AuditLog, Directory, ConnectionStore, ApiKeyStore, ClientStore] as const

export const AuditRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPorts(auditPortServices, yield* Effect.context<PortsOf<typeof auditPortServices>>())
    yield* router.add("GET", "/workspaces/:workspaceId/audit", withWorkspace(auditPage).pipe(ports))
  })
)
