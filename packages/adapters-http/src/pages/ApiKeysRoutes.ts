// The API keys page (docs/service.md, Pages: "API keys"; spec §Authentication 11, §Tokens and codes): New key (a
// name, the scopes this person may grant on this plan, the others struck through with the reason as on the consent
// page, and the Tool writes setting), the `ap_live_` key shown once with a copy button, the list (name, creator,
// created, last used, scopes, status) and Revoke. Who may: credentials/apiKeyRules.ts; every rule is the core's.
import { Effect } from "effect"
import { HttpRouter, UrlParams } from "effect/http"
import {
  type ApiKey, ApiKeyId, type ApiKeyInvalid, type ApiKeyNotAllowed, type ApiKeyNotFound, type ApiKeyScopeNotGrantable, apiKeyFormOptions, apiKeyNameMaxLength, allScopes, canCreateApiKeys, createApiKey, listApiKeys, mayEnd,
  revokeApiKey, type Scope, type User, type WriteMode
} from "@adgate/core"
import { notGrantableReasons, scopeDescriptions } from "../oauth/consentView.ts"
import { formatWhen } from "./formatting.ts"
import { html, type Html } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"
import { rolesWhere } from "./pageRoles.ts"
import { type PagePorts, withPagePorts } from "./PagePorts.ts"
import {
  doneAndBack, formField, noticeOf, renderWorkspacePage, requireRole, withWorkspace, withWorkspaceForm, type WorkspaceView
} from "./workspaceFrame.ts"

/** What the New key form was sent with, shown again with its problem. */
interface NewKeyForm {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly toolWrites: string
}

const emptyForm: NewKeyForm = { name: "", scopes: ["tasks:read"], toolWrites: "wait" }

const toolWritesWords: Readonly<Record<WriteMode, string>> = {
  wait: "Wait for approval",
  apply: "Apply ordinary changes at once"
}

const newKeySection = (view: WorkspaceView, form: NewKeyForm, problem: string | null): Html => {
  const options = apiKeyFormOptions(view.role, view.workspace.plan)
  const applyChosen = form.toolWrites === "apply" && options.canApplyAtOnce
  return html`<section class="card" id="new-key-form">
<h2>New key</h2>
<p class="muted">For scripts, CI jobs and servers with no person present. The key acts with the scopes chosen here, as long as you stay an admin or editor of ${view.workspace.name}.</p>
${problem === null ? "" : html`<p class="alert" role="alert">${problem}</p>`}
<form method="post" action="${pagePaths.apiKeys(view.workspace.id)}">
<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">
<label for="key_name">Name</label>
<input id="key_name" name="name" type="text" required maxlength="${apiKeyNameMaxLength}" value="${form.name}" placeholder="Nightly report job">
<fieldset>
<legend>Scopes</legend>
<ul class="plain">
${options.scopes.map((s) =>
  s.reason === null
    ? html`<li><label><input type="checkbox" name="scope" value="${s.scope}"${form.scopes.includes(s.scope) ? html` checked` : ""}> ${scopeDescriptions[s.scope]} <code>${s.scope}</code></label></li>`
    : html`<li><label class="struck"><input type="checkbox" name="scope" value="${s.scope}" disabled> <s>${scopeDescriptions[s.scope]} <code>${s.scope}</code></s></label>
<span class="muted">Not available: ${notGrantableReasons[s.reason]}.</span></li>`)}
</ul>
</fieldset>
<fieldset>
<legend>Tool writes</legend>
<label><input type="radio" name="tool_writes" value="wait"${applyChosen ? "" : html` checked`}> Wait for approval: each change made through a write tool waits in Write approvals for an admin or editor.</label>
<label${options.canApplyAtOnce ? "" : html` class="struck"`}><input type="radio" name="tool_writes" value="apply"${options.canApplyAtOnce ? (applyChosen ? html` checked` : "") : html` disabled`}> Apply ordinary changes at once (deletes and changes a platform marks as a person's decision still wait).</label>
${options.canApplyAtOnce ? "" : html`<p class="muted">Only a workspace admin can choose to apply changes at once.</p>`}
</fieldset>
<button type="submit">Create key</button>
</form>
</section>`
}

const keysTable = (view: WorkspaceView, keys: ReadonlyArray<{ readonly key: ApiKey; readonly creator: User | null }>): Html =>
  keys.length === 0
    ? html`<p class="muted">This workspace has no API keys yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Created by</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Scopes</th><th scope="col">Tool writes</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${keys.map(({ key, creator }) => html`<tr id="${key.id}">
<td>${key.name}</td>
<td>${creator === null ? html`<span class="muted">a former member</span>` : creator.name}</td>
<td>${formatWhen(key.createdAt)}</td>
<td>${formatWhen(key.lastUsedAt)}</td>
<td>${key.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td>${toolWritesWords[key.toolWrites]}</td>
<td>${key.revokedAt === null ? html`<span class="badge active">active</span>` : html`<span class="badge revoked">revoked</span> <span class="muted">${formatWhen(key.revokedAt)}</span>`}</td>
<td>${key.revokedAt === null && mayEnd(view.role, view.person.user.id, { ownerId: key.createdBy })
  ? html`<form method="post" action="${pagePaths.apiKeys(view.workspace.id)}/${key.id}/revoke" class="inline">
<input type="hidden" name="csrf_token" value="${view.person.csrfToken}">
<button type="submit" class="danger small" aria-label="Revoke ${key.name}">Revoke</button>
</form>`
  : ""}</td>
</tr>`)}
</tbody>
</table></div>`

const keysPage = (view: WorkspaceView, keys: ReadonlyArray<{ readonly key: ApiKey; readonly creator: User | null }>, options: {
  readonly notice?: Html
  readonly form?: NewKeyForm
  readonly problem?: string | null
  readonly status?: number
} = {}) =>
  renderWorkspacePage({
    view,
    section: "keys",
    title: "API keys",
    ...(options.status === undefined ? {} : { status: options.status }),
    body: html`${options.notice ?? ""}
${newKeySection(view, options.form ?? emptyForm, options.problem ?? null)}
<section class="card">
<h2>Keys</h2>
${view.role === "admin" ? "" : html`<p class="muted">You can revoke the keys you created; a workspace admin can revoke any.</p>`}
${keysTable(view, keys)}
</section>`
  })

/** The answer page of a new key: the key itself, this once. */
const createdPage = (view: WorkspaceView, key: ApiKey, secret: string) =>
  renderWorkspacePage({
    view,
    section: "keys",
    title: "Key created",
    body: html`<section class="card">
<p class="notice" role="status">${key.name} is created.</p>
<div class="secret"><code id="new-key">${secret}</code><button type="button" class="secondary small" data-copy="new-key" hidden>Copy</button></div>
<p class="warning">Copy the key now: it is shown only this once. Only its hash is kept; if it is lost, revoke it and create another.</p>
<p>Send it as <code>Authorization: Bearer &lt;key&gt;</code> to the REST API or the MCP server.</p>
<p>Scopes: ${key.scopes.map((s) => html`<code>${s}</code> `)} · Tool writes: ${toolWritesWords[key.toolWrites]}</p>
<p><a class="button" href="${pagePaths.apiKeys(view.workspace.id)}">Back to the keys</a></p>
</section>`
  })

const notFound = (view: WorkspaceView) =>
  renderWorkspacePage({
    view, section: "keys", title: "No such key", status: 404,
    body: html`<p>This workspace has no such API key.</p><p><a href="${pagePaths.apiKeys(view.workspace.id)}">Back to the keys</a></p>`
  })

const notAllowedWords: Readonly<Record<ApiKeyNotAllowed["reason"], string>> = {
  not_a_member: "You are not a member of this workspace.",
  role_cannot_connect: "Your role in this workspace cannot create or revoke API keys.",
  apply_needs_admin: "Only a workspace admin can choose to apply changes at once.",
  not_your_key: "You can revoke only the keys you created; a workspace admin can revoke any."
}

/** The core's refusals of creating and revoking a key, as the page says them: one row each. */
type KeyRefusal = ApiKeyInvalid | ApiKeyNotAllowed | ApiKeyScopeNotGrantable | ApiKeyNotFound
interface KeyRefusalRow {
  readonly status: number
  readonly message: string
}
export const keyRefusals = {
  ApiKeyInvalid: (e) => ({ status: 400, message: `The key was not created: ${e.message}.` }),
  ApiKeyNotAllowed: (e) => ({ status: 403, message: notAllowedWords[e.reason] }),
  ApiKeyScopeNotGrantable: (e) => ({ status: 403, message: `${e.scope} cannot be chosen: ${notGrantableReasons[e.reason]}.` }),
  ApiKeyNotFound: () => ({ status: 404, message: "This workspace has no such API key." })
} as const satisfies { readonly [K in KeyRefusal["_tag"]]: (e: Extract<KeyRefusal, { readonly _tag: K }>) => KeyRefusalRow }

const isKeyRefusal = (e: { readonly _tag: string }): e is KeyRefusal => Object.hasOwn(keyRefusals, e._tag)

const isScope = (value: string): value is Scope => (allScopes as ReadonlyArray<string>).includes(value)

export const ApiKeysRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPagePorts(yield* Effect.context<PagePorts>())
    const routePath = "/workspaces/:workspaceId/keys"
    const mayUse = (view: WorkspaceView) => requireRole(view, rolesWhere(canCreateApiKeys), "API keys")

    const keysGet = Effect.fnUntraced(function* (view: WorkspaceView) {
      const refused = yield* mayUse(view)
      if (refused._tag === "Some") return refused.value
      return keysPage(view, yield* listApiKeys(view.workspace.id), { notice: noticeOf(view.person) })
    })

    yield* router.add("GET", routePath, () =>
      withWorkspace((view) => keysGet(view)).pipe(ports))

    const createKeyPost = Effect.fnUntraced(function* (view: WorkspaceView, form: UrlParams.UrlParams) {
      const refused = yield* mayUse(view)
      if (refused._tag === "Some") return refused.value
      const sent: NewKeyForm = {
        name: (formField(form, "name") ?? "").slice(0, apiKeyNameMaxLength * 2),
        scopes: UrlParams.getAll(form, "scope").slice(0, allScopes.length * 2),
        toolWrites: formField(form, "tool_writes") ?? "wait"
      }
      const again = (problem: string, status: number) =>
        Effect.map(listApiKeys(view.workspace.id), (keys) => keysPage(view, keys, { form: sent, problem, status }))
      const unknown = sent.scopes.find((s) => !isScope(s))
      if (unknown !== undefined) return yield* again(`${unknown.slice(0, 64)} is not a scope.`, 400)
      if (sent.toolWrites !== "wait" && sent.toolWrites !== "apply") return yield* again("Choose how tool writes are handled.", 400)
      const outcome = yield* createApiKey({
        workspaceId: view.workspace.id, actorId: view.person.user.id, name: sent.name,
        scopes: sent.scopes.filter(isScope), toolWrites: sent.toolWrites
      }).pipe(Effect.result)
      if (outcome._tag === "Success") return createdPage(view, outcome.success.key, outcome.success.secret)
      const error = outcome.failure
      if (!isKeyRefusal(error)) return yield* error
      const row = (keyRefusals[error._tag] as (e: KeyRefusal) => KeyRefusalRow)(error)
      return yield* again(row.message, row.status)
    })

    yield* router.add("POST", routePath, () =>
      withWorkspaceForm((view, form) => createKeyPost(view, form)).pipe(ports))

    const revokeKeyPost = Effect.fnUntraced(function* (view: WorkspaceView) {
      const keyId = ApiKeyId.make((yield* HttpRouter.params)["keyId"] ?? "")
      const outcome = yield* revokeApiKey({ keyId, workspaceId: view.workspace.id, actorId: view.person.user.id }).pipe(Effect.result)
      if (outcome._tag === "Success") return yield* doneAndBack(pagePaths.apiKeys(view.workspace.id), `${outcome.success.name} is revoked.`)
      const error = outcome.failure
      if (!isKeyRefusal(error)) return yield* error
      if (error._tag === "ApiKeyNotFound") return notFound(view)
      const row = (keyRefusals[error._tag] as (e: KeyRefusal) => KeyRefusalRow)(error)
      return renderWorkspacePage({
        view, section: "keys", title: "Not allowed", status: row.status,
        body: html`<p>${row.message}</p><p><a href="${pagePaths.apiKeys(view.workspace.id)}">Back to the keys</a></p>`
      })
    })

    yield* router.add("POST", `${routePath}/:keyId/revoke`, () =>
      withWorkspaceForm((view) => revokeKeyPost(view)).pipe(ports))
  })
)
