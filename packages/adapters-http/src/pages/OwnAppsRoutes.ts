// The Own OAuth apps page (docs/service.md, Pages: "Own OAuth apps"; spec §Resources: OAuth client, "Register an
// app"): the workspace's own apps with their client ids and redirect URIs, Register an app (a name, 1 to 10 redirect
// URIs one per line, Server or Public app), the client secret shown once on the answer page, and Remove after a
// confirmation that says how many connections it ends. Who may: clients/workspaceApps.ts; every rule is the core's.
import { Effect } from "effect"
import { HttpRouter, type UrlParams } from "effect/http"
import {
  canManageWorkspaceApps, canReadWorkspaceApps, type Client, ClientId, type InvalidClientMetadata, type InvalidRedirectUri, listWorkspaceApps,
  maxAppsPerWorkspace, maxClientNameLength, maxRedirectUris, type NotAllowed, type RedirectUrisRejected, registerWorkspaceApp,
  removeWorkspaceApp, type TooManyApps, workspaceAppWithConnections
} from "@adgate/core"
import { formatWhen } from "./formatting.ts"
import { html, type Html } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"
import { rolesWhere } from "./pageRoles.ts"
import { type PagePorts, withPagePorts } from "./PagePorts.ts"
import {
  doneAndBack, formField, noticeOf, renderWorkspacePage, requireRole, withWorkspace, withWorkspaceForm, type WorkspaceView
} from "./workspaceFrame.ts"

/** What the Register form was sent with, shown again with its problems (none of it is secret). */
interface RegisterForm {
  readonly name: string
  readonly redirectUris: string
  readonly type: string
}

const emptyForm: RegisterForm = { name: "", redirectUris: "", type: "server" }

type RedirectLines = ReadonlyArray<{ readonly line: number; readonly uri: string }>

/** The non-blank lines of the textarea, each with its line number (1-based), trimmed. */
export const redirectLines = (text: string): RedirectLines =>
  text.split(/\r\n|\r|\n/).flatMap((raw, i) => {
    const uri = raw.trim()
    return uri === "" ? [] : [{ line: i + 1, uri }]
  })

/** The core's refusals of a registration, as the form shows them: one row each (a missing or extra row does not compile). */
type RegisterRefusal = NotAllowed | InvalidClientMetadata | InvalidRedirectUri | RedirectUrisRejected | TooManyApps
interface RefusalRow {
  readonly status: number
  readonly problems: ReadonlyArray<string>
}
export const registerRefusals = {
  // Each refused URI by its line in the textarea (the core names its place in the list of non-blank lines).
  RedirectUrisRejected: (e, lines) => ({
    status: 400,
    problems: e.problems.map((p) => {
      const at = lines[p.index]
      return at === undefined ? `${p.reason}.` : `Line ${at.line} (${at.uri}): ${p.reason}.`
    })
  }),
  InvalidRedirectUri: (e) => ({ status: 400, problems: [`Redirect URIs: ${e.description}.`] }),
  InvalidClientMetadata: (e) => ({ status: 400, problems: [`Name: ${e.description}.`] }),
  TooManyApps: (e) => ({ status: 409, problems: [`This workspace has ${e.limit} apps, the most it may have. Remove one to register another.`] }),
  NotAllowed: () => ({ status: 403, problems: ["Only a workspace admin registers apps."] })
} as const satisfies { readonly [K in RegisterRefusal["_tag"]]: (e: Extract<RegisterRefusal, { readonly _tag: K }>, lines: RedirectLines) => RefusalRow }

const isRegisterRefusal = (e: { readonly _tag: string }): e is RegisterRefusal => Object.hasOwn(registerRefusals, e._tag)

const typeLabel = (client: Client): string => client.authMethod === "none" ? "Public app (PKCE only)" : "Server app (client secret)"

const appsTable = (view: WorkspaceView, apps: ReadonlyArray<Client>): Html =>
  apps.length === 0
    ? html`<p class="muted">This workspace has no own apps yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Client ID</th><th scope="col">Redirect URIs</th><th scope="col">Registered</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${apps.map((app) => html`<tr>
<td>${app.name ?? ""}</td>
<td>${typeLabel(app)}</td>
<td><code>${app.clientId}</code></td>
<td><ul class="plain">${app.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></td>
<td>${formatWhen(app.createdAt)}</td>
<td>${canManageWorkspaceApps(view.role)
  ? html`<a class="button secondary small" href="${pagePaths.ownApp(view.workspace.id, app.clientId)}">Remove…</a>`
  : html`<a href="${pagePaths.ownApp(view.workspace.id, app.clientId)}">Details</a>`}</td>
</tr>`)}
</tbody>
</table></div>`

const registerSection = (view: WorkspaceView, count: number, form: RegisterForm, problems: ReadonlyArray<string>): Html => {
  if (!canManageWorkspaceApps(view.role))
    return html`<p class="muted">Only a workspace admin registers or removes apps; you can use these to connect.</p>`
  if (count >= maxAppsPerWorkspace)
    return html`<section class="card" id="register"><h2>Register an app</h2>
<p class="warning">This workspace has ${count} apps, the most it may have (${maxAppsPerWorkspace}). Remove one to register another.</p></section>`
  return html`<section class="card" id="register">
<h2>Register an app</h2>
${problems.length === 0 ? "" : html`<div class="alert" role="alert"><p>The app was not registered:</p><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>`}
<form method="post" action="${pagePaths.ownApps(view.workspace.id)}">
<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">
<label for="name">Name</label>
<input id="name" name="name" type="text" required maxlength="${maxClientNameLength}" value="${form.name}">
<label for="redirect_uris">Redirect URIs, one per line (1 to ${maxRedirectUris})</label>
<textarea id="redirect_uris" name="redirect_uris" required aria-describedby="redirect_help">${form.redirectUris}</textarea>
<p class="muted" id="redirect_help">https addresses, http only on localhost, 127.0.0.1 or [::1], or a private-use scheme in reverse-domain form (com.example.app:/callback). No fragments, wildcards or addresses on this service.</p>
<fieldset>
<legend>Type</legend>
<label><input type="radio" name="type" value="server"${form.type === "public" ? "" : html` checked`}> Server app: authenticates with a client secret, shown once after registering</label>
<label><input type="radio" name="type" value="public"${form.type === "public" ? html` checked` : ""}> Public app: no secret, PKCE only (a browser or desktop app)</label>
</fieldset>
<button type="submit">Register app</button>
</form>
</section>`
}

const appsPage = (view: WorkspaceView, apps: ReadonlyArray<Client>, options: {
  readonly notice?: Html
  readonly form?: RegisterForm
  readonly problems?: ReadonlyArray<string>
  readonly status?: number
} = {}) =>
  renderWorkspacePage({
    view,
    section: "apps",
    title: "Own OAuth apps",
    ...(options.status === undefined ? {} : { status: options.status }),
    body: html`${options.notice ?? ""}
<p>Apps this workspace registered for itself: only its members can connect them. ${apps.length} of ${maxAppsPerWorkspace}.</p>
${appsTable(view, apps)}
${registerSection(view, apps.length, options.form ?? emptyForm, options.problems ?? [])}`
  })

/** The answer page of a registration: the client id, and a Server app's secret, shown this once. */
const registeredPage = (view: WorkspaceView, client: Client, secret: string | null) =>
  renderWorkspacePage({
    view,
    section: "apps",
    title: "App registered",
    body: html`<section class="card">
<p class="notice" role="status">${client.name ?? ""} is registered.</p>
<dl class="facts">
<dt>Client ID</dt><dd><div class="secret"><code id="client-id">${client.clientId}</code><button type="button" class="secondary small" data-copy="client-id" hidden>Copy</button></div></dd>
${secret === null
  ? html`<dt>Client secret</dt><dd>None: a Public app uses PKCE only.</dd>`
  : html`<dt>Client secret</dt><dd><div class="secret"><code id="client-secret">${secret}</code><button type="button" class="secondary small" data-copy="client-secret" hidden>Copy</button></div>
<p class="warning">Copy the secret now: it is shown only this once. Only its hash is kept; if it is lost, remove the app and register it again.</p></dd>`}
<dt>Redirect URIs</dt><dd><ul class="plain">${client.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></dd>
</dl>
<p><a class="button" href="${pagePaths.ownApps(view.workspace.id)}">Back to the apps</a></p>
</section>`
  })

const appPage = (view: WorkspaceView, client: Client, activeConnections: number) =>
  renderWorkspacePage({
    view,
    section: "apps",
    title: client.name ?? client.clientId,
    body: html`<section class="card">
<dl class="facts">
<dt>Client ID</dt><dd><code>${client.clientId}</code></dd>
<dt>Type</dt><dd>${typeLabel(client)}</dd>
<dt>Redirect URIs</dt><dd><ul class="plain">${client.redirectUris.map((uri) => html`<li><code>${uri}</code></li>`)}</ul></dd>
<dt>Registered</dt><dd>${formatWhen(client.createdAt)}</dd>
<dt>Active connections</dt><dd>${activeConnections}</dd>
</dl>
</section>
${canManageWorkspaceApps(view.role)
  ? html`<section class="card">
<h2>Remove this app</h2>
<p class="warning">${activeConnections === 0
  ? html`${client.name ?? "This app"} has no active connection. Once removed, nobody can connect with it again.`
  : html`Removing ${client.name ?? "this app"} ends ${activeConnections === 1 ? "its 1 active connection" : `its ${activeConnections} active connections`} at once: their refresh tokens stop working and every access token of them is refused. Nobody can connect with it again.`}</p>
<form method="post" action="${pagePaths.ownApp(view.workspace.id, client.clientId)}/remove" class="actions">
<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">
<button type="submit" class="danger">${activeConnections === 0 ? "Remove app" : `Remove app and end ${activeConnections} ${activeConnections === 1 ? "connection" : "connections"}`}</button>
<a href="${pagePaths.ownApps(view.workspace.id)}">Cancel</a>
</form>
</section>`
  : html`<p><a href="${pagePaths.ownApps(view.workspace.id)}">Back to the apps</a></p>`}`
  })

const appNotFound = (view: WorkspaceView) =>
  renderWorkspacePage({
    view,
    section: "apps",
    title: "No such app",
    status: 404,
    body: html`<p>This workspace has no app with this client ID, or it was removed.</p>
<p><a href="${pagePaths.ownApps(view.workspace.id)}">Back to the apps</a></p>`
  })

export const OwnAppsRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPagePorts(yield* Effect.context<PagePorts>())
    const routePath = "/workspaces/:workspaceId/apps"

    /** The page for people who may read it; a viewer gets the 403 page that says who may. */
    const readable = (view: WorkspaceView) =>
      requireRole(view, rolesWhere(canReadWorkspaceApps), "Own OAuth apps")

    const appsGet = Effect.fnUntraced(function* (view: WorkspaceView) {
      const refused = yield* readable(view)
      if (refused._tag === "Some") return refused.value
      return appsPage(view, yield* listWorkspaceApps(view.workspace.id), { notice: noticeOf(view.person) })
    })

    yield* router.add("GET", routePath, () =>
      withWorkspace((view) => appsGet(view)).pipe(ports))

    const createAppPost = Effect.fnUntraced(function* (view: WorkspaceView, form: UrlParams.UrlParams) {
      const refused = yield* requireRole(view, rolesWhere(canManageWorkspaceApps), "Registering an app")
      if (refused._tag === "Some") return refused.value
      const sent: RegisterForm = {
        name: (formField(form, "name") ?? "").slice(0, maxClientNameLength * 2),
        redirectUris: (formField(form, "redirect_uris") ?? "").slice(0, 32_768),
        type: formField(form, "type") ?? ""
      }
      const again = (problems: ReadonlyArray<string>, status: number) =>
        Effect.map(listWorkspaceApps(view.workspace.id), (apps) => appsPage(view, apps, { form: sent, problems, status }))
      if (sent.type !== "server" && sent.type !== "public") return yield* again(["Choose Server app or Public app."], 400)
      const lines = redirectLines(sent.redirectUris)
      if (lines.length === 0) return yield* again(["Give at least one redirect URI."], 400)
      if (lines.length > maxRedirectUris)
        return yield* again([`Give at most ${maxRedirectUris} redirect URIs; there are ${lines.length}.`], 400)
      const outcome = yield* registerWorkspaceApp({
        workspaceId: view.workspace.id, actorId: view.person.user.id, name: sent.name, redirectUris: lines.map((l) => l.uri), type: sent.type
      }).pipe(Effect.result)
      if (outcome._tag === "Success") return registeredPage(view, outcome.success.client, outcome.success.clientSecret)
      const error = outcome.failure
      if (!isRegisterRefusal(error)) return yield* error
      const row = (registerRefusals[error._tag] as (e: RegisterRefusal, lines: RedirectLines) => RefusalRow)(error, lines)
      return yield* again(row.problems, row.status)
    })

    yield* router.add("POST", routePath, () =>
      withWorkspaceForm((view, form) => createAppPost(view, form)).pipe(ports))

    const appGet = Effect.fnUntraced(function* (view: WorkspaceView) {
      const refused = yield* readable(view)
      if (refused._tag === "Some") return refused.value
      const clientId = ClientId.make((yield* HttpRouter.params)["clientId"] ?? "")
      return yield* workspaceAppWithConnections(view.workspace.id, clientId).pipe(
        Effect.map(({ client, activeConnections }) => appPage(view, client, activeConnections)),
        Effect.catchTag("WorkspaceAppNotFound", () => Effect.succeed(appNotFound(view))))
    })

    yield* router.add("GET", `${routePath}/:clientId`, () =>
      withWorkspace((view) => appGet(view)).pipe(ports))

    const removeAppPost = Effect.fnUntraced(function* (view: WorkspaceView) {
      const refused = yield* requireRole(view, rolesWhere(canManageWorkspaceApps), "Removing an app")
      if (refused._tag === "Some") return refused.value
      const clientId = ClientId.make((yield* HttpRouter.params)["clientId"] ?? "")
      return yield* removeWorkspaceApp({ clientId, workspaceId: view.workspace.id, actorId: view.person.user.id }).pipe(
        Effect.flatMap(({ client, ended }) =>
          doneAndBack(pagePaths.ownApps(view.workspace.id),
            `${client.name ?? client.clientId} is removed; ${ended} ${ended === 1 ? "connection" : "connections"} ended.`)),
        Effect.catchTag("WorkspaceAppNotFound", () => Effect.succeed(appNotFound(view))),
        // The role was checked above: only a role lost in between gets here.
        Effect.catchTag("NotAllowedToManage", () => Effect.succeed(renderWorkspacePage({
          view, section: "apps", title: "Not allowed", status: 403, body: html`<p>Only a workspace admin removes apps.</p>`
        }))))
    })

    yield* router.add("POST", `${routePath}/:clientId/remove`, () =>
      withWorkspaceForm((view) => removeAppPost(view)).pipe(ports))
  })
)
