// The frame of every signed-in management page (docs/service.md, Pages): who is signed in, the workspace the page
// is about (from its path, checked against the person's memberships), the header with the workspace switcher, the
// page navigation and Sign out, and the CSRF-checked form post. Each page file (API & MCP, own apps, keys, write
// approvals, audit, settings, account) renders its body and calls `renderWorkspacePage`; none checks membership or
// CSRF itself.
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse, UrlParams } from "effect/http"
import { type Role, type StoreUnavailable, type Workspace, WorkspaceId } from "@adgate/core"
import { People, type Person } from "../people/People.ts"
import { RequestId } from "../security.ts"
import { html, type Html, renderErrorPage, renderPage, seeOther } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"

/** The signed-in person on a page of one of their workspaces, with their role there. */
export interface WorkspaceView {
  readonly person: Person
  readonly workspace: Workspace
  readonly role: Role
}

/** The sections of the navigation; a page names the one it is. */
export type Section = "api-mcp" | "approvals" | "audit" | "apps" | "keys" | "settings" | "account" | "mailbox"

const sections: ReadonlyArray<{ readonly id: Section; readonly label: string; readonly href: (ws: WorkspaceId) => string }> = [
  { id: "api-mcp", label: "API & MCP", href: pagePaths.apiMcp },
  { id: "approvals", label: "Write approvals", href: (ws) => pagePaths.approvals(ws) },
  { id: "apps", label: "Own OAuth apps", href: pagePaths.ownApps },
  { id: "keys", label: "API keys", href: pagePaths.apiKeys },
  { id: "audit", label: "Audit log", href: (ws) => pagePaths.audit(ws) },
  { id: "settings", label: "Settings", href: pagePaths.settings }
]

/** The header of every signed-in page: the brand, the workspace switch, the account and Sign out. */
export const pageHeader = (person: Person, current: WorkspaceId | null): Html =>
  html`<header class="top">
<a class="brand" href="${pagePaths.home}">adgate</a>
<div class="who">
${person.workspaces.length === 0 ? "" : html`<form method="post" action="/session/workspace" class="switch">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<input type="hidden" name="return_to" value="${pagePaths.home}">
<label for="workspace_id" class="visually-hidden">Workspace</label>
<select id="workspace_id" name="workspace_id">
${person.workspaces.map((w) =>
  html`<option value="${w.workspace.id}"${w.workspace.id === current ? html` selected` : ""}>${w.workspace.name} (${w.role})</option>`)}
</select>
<button type="submit" class="secondary small">Switch</button>
</form>`}
<a href="${pagePaths.account}" class="account" title="${person.user.email}">${person.user.name}</a>
<form method="post" action="/signout" class="inline">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<button type="submit" class="secondary small">Sign out</button>
</form>
</div>
</header>`

const navigation = (workspace: WorkspaceId, active: Section): Html =>
  html`<nav class="sections" aria-label="Workspace">
${sections.map((s) =>
  html`<a href="${s.href(workspace)}"${s.id === active ? html` aria-current="page"` : ""}>${s.label}</a>`)}
</nav>`

export interface WorkspacePageOptions {
  readonly view: WorkspaceView
  readonly section: Section
  readonly title: string
  readonly body: Html
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
}

/** A management page of one workspace: header, navigation, then `body` under the page's title. */
export const renderWorkspacePage = (options: WorkspacePageOptions): HttpServerResponse.HttpServerResponse =>
  renderPage({
    title: `${options.title} · ${options.view.workspace.name}`,
    wide: true,
    header: pageHeader(options.view.person, options.view.workspace.id),
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    body: html`${navigation(options.view.workspace.id, options.section)}
<h1>${options.title}</h1>
${options.body}`
  })

/** A signed-in page that belongs to no workspace (the account, the development mailbox). */
export const renderPersonPage = (options: {
  readonly person: Person
  readonly title: string
  readonly body: Html
  readonly status?: number
}): HttpServerResponse.HttpServerResponse =>
  renderPage({
    title: options.title,
    wide: true,
    header: pageHeader(options.person, options.person.workspaceId),
    ...(options.status === undefined ? {} : { status: options.status }),
    body: html`<h1>${options.title}</h1>
${options.body}`
  })

const notYourWorkspace = Effect.map(Effect.service(RequestId), (requestId) =>
  renderErrorPage({
    status: 404,
    title: "No such workspace",
    message: "This workspace does not exist or you are not a member of it.",
    returnTo: pagePaths.home,
    requestId
  }))

/** The refusal of a post whose CSRF token is missing or wrong (RFC 6749 §10.12): nothing changed. */
export const formExpired = Effect.map(Effect.service(RequestId), (requestId) =>
  renderErrorPage({
    status: 403,
    title: "This form has expired",
    message: "The form was not sent from this page or has expired. Go back, reload the page and try again.",
    requestId
  }))

/**
 * Runs `f` for the signed-in person on the workspace named by the route's `:workspaceId`: sign-in first when nobody
 * is signed in (303, back to this page), 404 when the person is not a member (the same answer as an unknown
 * workspace, so membership of others is not revealed).
 */
export const withWorkspace = <E, R>(
  f: (view: WorkspaceView, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse, E | StoreUnavailable, R | HttpServerRequest.HttpServerRequest | People | HttpRouter.RouteContext
> => inWorkspace(f)

// withWorkspace's and withWorkspaceForm's bodies, generic over f's types (Effect.fnUntraced carries them through).
const inWorkspace = Effect.fnUntraced(function* <E, R>(
  f: (view: WorkspaceView, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) {
  const people = yield* People
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const id = WorkspaceId.make(params["workspaceId"] ?? "")
  return yield* people.requirePerson(request, (person) => {
    const membership = person.workspaces.find((w) => w.workspace.id === id)
    return membership === undefined
      ? notYourWorkspace
      : f({ person, workspace: membership.workspace, role: membership.role }, request)
  })
})

const checkedForm = Effect.fnUntraced(function* <E, R>(
  f: (view: WorkspaceView, form: UrlParams.UrlParams, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  view: WorkspaceView,
  request: HttpServerRequest.HttpServerRequest
) {
  const people = yield* People
  const form = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
  if (!(yield* people.verifyCsrf(request, formField(form, "csrf_token")))) return yield* formExpired
  return yield* f(view, form, request)
})

/**
 * The form of a POST on a workspace page, after its CSRF check (same site, token of this session): `f` runs only
 * when the check passed; otherwise 403 and nothing changes.
 */
export const withWorkspaceForm = <E, R>(
  f: (view: WorkspaceView, form: UrlParams.UrlParams, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  withWorkspace((view, request) => checkedForm(f, view, request))

/** The first value of a form field, or undefined. */
export const formField = (form: UrlParams.UrlParams, name: string): string | undefined =>
  Option.getOrUndefined(UrlParams.getFirst(form, name))

/**
 * After a successful post: back to `path` (303), with an optional one-line notice shown once at the top of the page
 * it lands on. The notice travels in a cookie of this session for that page (People.withNotice), never in the URL:
 * a link cannot put words on our pages.
 */
export const doneAndBack = Effect.fnUntraced(function* (path: string, notice?: string) {
  const back = seeOther(path)
  if (notice === undefined) return back
  return (yield* People).withNotice(back, yield* HttpServerRequest.HttpServerRequest, path, notice)
})

/** The notice a `doneAndBack` left for this page, shown at its top (the page's answer clears it). */
export const noticeOf = (person: Person): Html =>
  person.notice === null || person.notice === "" ? html`` : html`<p class="notice" role="status">${person.notice}</p>`

/** Only an admin (or, with `editor`, an editor too) may see or do this; otherwise a 403 page that says so. */
export const requireRole = (view: WorkspaceView, allowed: ReadonlyArray<Role>, what: string) =>
  allowed.includes(view.role)
    ? Effect.succeed(Option.none<HttpServerResponse.HttpServerResponse>())
    : Effect.map(Effect.service(RequestId), (requestId) =>
        Option.some(renderErrorPage({
          status: 403,
          title: "Not allowed",
          message: `${what} needs the role ${allowed.join(" or ")} in ${view.workspace.name}; you are ${view.role}.`,
          returnTo: pagePaths.apiMcp(view.workspace.id),
          requestId
        })))
