// The consent page's HTML (spec §GET /oauth/authorize "The consent page shows", §Authentication 9; checklist M
// 153–160, I 124): who asks (verified, or Unverified app with its self-given name in quotes and the document host),
// where the answer goes, the account, the workspace with its switcher, the surface, one checkbox per permission,
// platforms, the write-approval choice, and Allow access (enabled after a moment, with a noscript line) / Cancel: a
// summary first, the details folded, so that Allow access is in view on a laptop screen.
import type { ConsentOptions, NotGrantable, Scope, Surface } from "@adgate/core"
import type { HttpServerResponse } from "effect/http"
import { html, renderPage } from "../pages/layout.ts"
import { appLabel } from "../pages/appLabel.ts"
import type { Person } from "../people/People.ts"
import { contentSecurityPolicy } from "../security.ts"
import { oauthPaths } from "../discovery/metadata.ts"

/** Spec §Resources: Scopes, "Allows". */
export const scopeDescriptions: Readonly<Record<Scope, string>> = {
  "tasks:read": "See tasks, their plans, results and reports",
  "tasks:write": "Start and follow up tasks (they run on the workspace's credits under its approval rules)",
  "accounts:read": "List the workspace's connected ad, analytics and store accounts",
  "tools:read": "Call platform read tools (reports, settings, lists)",
  "tools:write": "Call platform write tools (changes)",
  "tools:raw": "Raw platform access: call the platforms' own APIs with the workspace's connections"
}

export const notGrantableReasons: Readonly<Record<NotGrantable, string>> = {
  role_cannot_connect: "your role in this workspace cannot connect apps",
  needs_admin: "only a workspace admin can grant this",
  needs_paid_plan: "this needs a paid plan"
}

const surfaceNames: Readonly<Record<Surface, string>> = {
  mcp: "the MCP server",
  rest: "the REST API",
  both: "the MCP server and the REST API"
}

/** The path a workspace switch returns to: it explains that the flow restarts from the app. */
export const restartPath = (pageId: string): string => `${oauthPaths.consent}/restart?page=${encodeURIComponent(pageId)}`

/** The minimum time the page is on screen before Allow access counts (spec §Authentication 9). */
export const consentMomentMs = 1_000

export interface ConsentView {
  readonly pageId: string
  readonly csrfToken: string
  readonly options: ConsentOptions
  readonly person: Person
  readonly workspaceId: string
  /** Shown above the form when the page is shown again (e.g. Allow access was pressed too soon). */
  readonly notice?: string
  /** The choices the person posted, kept when the page is shown again; otherwise the defaults are ticked. */
  readonly chosen?: {
    readonly scopes: ReadonlyArray<Scope>
    readonly platforms: "all" | ReadonlyArray<string>
    readonly writeMode: "wait" | "apply"
  }
}

const isLoopbackRedirect = (host: string): boolean => /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(host)

/** The `form-action` source the 303 to the app needs: its origin, or its scheme for a private-use URI. */
const formActionSource = (redirectUri: string): string | null => {
  try {
    const url = new URL(redirectUri)
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol
  } catch {
    return null
  }
}

/** The one rendering of an app (pages/appLabel.ts), kept importable from here. */
export { appLabel } from "../pages/appLabel.ts"

/** What the page says about the noscript case: the delay needs the page's script (spec §Authentication 9). */
export const noscriptNotice =
  "Allow access becomes clickable only with JavaScript: it is enabled a moment after this page opens, so that a click " +
  "meant for something else cannot grant access. Without JavaScript you can still Cancel."

const writeModeNames = { wait: "wait for approval", apply: "ordinary changes apply at once" } as const

/**
 * The page, laid out so that Allow access is reached without scrolling on a laptop screen, in one card: who asks and a
 * summary (where the answer goes, account, workspace with its switch folded, surface), then the form's details folded
 * (`<details>`, each summary line naming the current choice: the permission count, the platforms, the write setting),
 * then the buttons; the full redirect URI follows, folded too. Field names are the form's contract with POST
 * /oauth/consent.
 */
export const renderConsentPage = (view: ConsentView, status = 200): HttpServerResponse.HttpServerResponse => {
  const { options, person } = view
  const app = options.app
  const membership = person.workspaces.find((w) => w.workspace.id === view.workspaceId)
  const workspaceName = membership?.workspace.name ?? "this workspace"
  const asksChanges = options.showWriteChoice
  const formAction = formActionSource(app.redirectUri)
  const ticked = (s: { readonly scope: Scope; readonly preTicked: boolean }) =>
    view.chosen === undefined ? s.preTicked : view.chosen.scopes.includes(s.scope)
  const applyChosen = options.canApplyAtOnce && view.chosen?.writeMode === "apply"
  const grantable = options.scopes.filter((s) => s.grantable)
  const tickedCount = grantable.filter(ticked).length
  const notAvailable = options.scopes.length - grantable.length
  const chosenPlatforms = view.chosen?.platforms ?? "all"
  const loopback = isLoopbackRedirect(app.redirectHost)

  const permissionCount = html`${String(tickedCount)} of ${String(options.scopes.length)} ticked${
    notAvailable === 0 ? "" : html` <span class="muted">(${String(notAvailable)} not available to you)</span>`}`
  const platformSummary = chosenPlatforms === "all"
    ? "all connected, including later ones"
    : `only ${chosenPlatforms.length === 1 ? "1 ticked platform" : `${chosenPlatforms.length} ticked platforms`}`

  // The summary: who asks, where the answer goes, the account, the workspace and the surface, one line each; the
  // folded details that follow name the permission count, the platforms and the write setting in their summary lines.
  const summary = html`
<h1>${appLabel({ name: app.name, verified: app.verified, documentHost: app.verified || app.kind !== "metadata_document" ? null : app.documentHost })} wants to connect to ${workspaceName}</h1>
${app.verified ? "" : html`<p class="warning" role="note">adgate has not verified this app. Its name is what the app says about itself.
Only allow access if you trust it and you started this connection yourself.</p>`}
${loopback
  ? html`<p class="warning" role="note">The answer goes to a program on this computer (${app.redirectHost}). Allow only if you are connecting an app you run yourself.</p>`
  : ""}
<dl class="summary">
<dt>Sends you back to</dt><dd><strong>${app.redirectHost}</strong></dd>
<dt>Signed in as</dt><dd>${person.user.name} <span class="muted">(${person.user.email})</span></dd>
<dt>Workspace</dt><dd><strong>${workspaceName}</strong> <span class="muted">(${membership === undefined ? "" : `${membership.role}, ${membership.workspace.plan} plan; `}an app connects to one workspace)</span></dd>
<dt>Connects to</dt><dd><strong>${surfaceNames[options.surface]}</strong></dd>
</dl>
${person.workspaces.length > 1
  ? html`<details class="fold">
<summary>Connect to another workspace instead</summary>
<form method="post" action="/session/workspace">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<input type="hidden" name="return_to" value="${restartPath(view.pageId)}">
<label for="workspace_id">Workspace</label>
<select id="workspace_id" name="workspace_id">
${person.workspaces.map((w) => html`<option value="${w.workspace.id}"${w.workspace.id === view.workspaceId ? html` selected` : ""}>${w.workspace.name}</option>`)}
</select>
<button type="submit" class="secondary">Switch workspace</button>
<p class="muted">Switching workspace ends this request: you then start again from the app.</p>
</form>
</details>`
  : ""}`

  const permissions = html`<details class="fold">
<summary>Permissions: ${permissionCount}</summary>
<fieldset>
<legend>Permissions</legend>
<ul class="plain">
${options.scopes.map((s) =>
  s.grantable
    ? html`<li><label><input type="checkbox" name="scope" value="${s.scope}"${ticked(s) ? html` checked` : ""}> ${scopeDescriptions[s.scope]} <code>${s.scope}</code></label></li>`
    : html`<li><label class="struck"><input type="checkbox" name="scope" value="${s.scope}" disabled> <s>${scopeDescriptions[s.scope]} <code>${s.scope}</code></s></label>
<span class="muted">Not available: ${s.reason === null ? "" : notGrantableReasons[s.reason]}.</span></li>`)}
</ul>
</fieldset>
</details>`

  // Spec: "all connected, including later ones, or only ticked ones". The ticked list takes effect only with its
  // radio chosen; the core re-checks every ticked family against the workspace's connected ones.
  const platformList = options.platforms ?? []
  const platforms = options.showPlatforms
    ? html`<details class="fold">
<summary>Platforms: ${platformSummary}</summary>
<fieldset>
<legend>Platforms</legend>
<label><input type="radio" name="platforms" value="all"${chosenPlatforms === "all" ? html` checked` : ""}> All connected platforms, including ones connected later</label>
${platformList.length > 0
  ? html`<label><input type="radio" name="platforms" value="ticked"${chosenPlatforms === "all" ? "" : html` checked`}> Only the platforms ticked here:</label>
<ul class="plain">
${platformList.map((p) => html`<li><label><input type="checkbox" name="platform" value="${p.id}"${chosenPlatforms !== "all" && chosenPlatforms.includes(p.id) ? html` checked` : ""}> ${p.name} <code>${p.id}</code></label></li>`)}
</ul>`
  : html`<p class="muted">${options.platforms === null
    ? "The connected platforms could not be listed just now; choose all, or start again later to pick some."
    : "This workspace has no connected platforms yet."}</p>`}
</fieldset>
</details>`
    : ""

  const writeChoice = asksChanges
    ? html`<details class="fold">
<summary>Changes: ${writeModeNames[applyChosen ? "apply" : "wait"]}</summary>
<fieldset>
<legend>Changes made through the app</legend>
<label><input type="radio" name="write_mode" value="wait"${applyChosen ? "" : html` checked`}> Wait for approval: each proposed change waits in Write approvals until an admin or editor approves it, and you get an e-mail.</label>
<label${options.canApplyAtOnce ? "" : html` class="struck"`}><input type="radio" name="write_mode" value="apply"${options.canApplyAtOnce ? (applyChosen ? html` checked` : "") : html` disabled`}> Apply ordinary changes at once (deletes and changes a platform marks as a person's decision still wait).</label>
${options.canApplyAtOnce ? "" : html`<p class="muted">Only a workspace admin can choose to apply changes at once.</p>`}
</fieldset>
</details>`
    : ""

  const decision = html`${view.notice === undefined ? "" : html`<p class="alert" role="alert">${view.notice}</p>`}
<form method="post" action="${oauthPaths.consent}">
<input type="hidden" name="page" value="${view.pageId}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
${permissions}
${platforms}
${writeChoice}
<div class="actions">
<button type="submit" name="action" value="allow" disabled data-enable-after="${String(consentMomentMs)}">Allow access</button>
<button type="submit" name="action" value="cancel" class="secondary">Cancel</button>
</div>
<noscript><p class="warning" role="note">${noscriptNotice}</p></noscript>
<p class="muted">Nothing is granted before you select Allow access. This page is valid for 10 minutes.</p>
</form>`

  // After the buttons, folded: the full address the answer goes to and where the app's description is served.
  const more = html`<details class="card fold">
<summary>More about this request</summary>
<p>After you decide, you are sent back to <strong>${app.redirectHost}</strong> <span class="muted">(<code>${app.redirectUri}</code>)</span>.</p>
${app.kind === "metadata_document" && app.documentHost !== null
  ? html`<p>The app's description is served by <strong>${app.documentHost}</strong>.</p>`
  : ""}
</details>`

  return renderPage({
    title: "Allow access?",
    status,
    headers: { "content-security-policy": contentSecurityPolicy({ formAction: formAction === null ? [] : [formAction] }) },
    body: html`<section class="card consent">${summary}${decision}</section>${more}`
  })
}
