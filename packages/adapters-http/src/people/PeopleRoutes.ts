// The people pages: GET/POST /signin, POST /signout, POST /session/workspace and `/` (to the API & MCP page)
// (docs/decisions.md, People, sessions and pages; checklist M 153–157, 162; RFC 6749 §10.12 CSRF). Every POST is
// CSRF-checked and same-site only.
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, UrlParams } from "effect/http"
import {
  ClientStore, EventOutbox, Issuer, type NotAMember, passwordMaxLength, signIn, type SignInRefused, type SignInThrottled, signOut, switchWorkspace, Transactor,
  WorkspaceId
} from "@adgate/core"
import { type PortsOf, withPorts } from "@adgate/answers"
import { askingApp } from "../oauth/askingApp.ts"
import { html, renderErrorPage, renderPage, seeOther, type Html } from "../pages/layout.ts"
import { People, peoplePortServices, type Person } from "./People.ts"
import { safeReturnTo } from "./returnTo.ts"
import { pagePaths } from "../pages/pagePaths.ts"
import { formExpired, renderPersonPage } from "../pages/workspaceFrame.ts"

const field = (form: UrlParams.UrlParams, name: string): string | undefined =>
  Option.getOrUndefined(UrlParams.getFirst(form, name))

/** The core's people errors as the pages answer them: one row each (a missing or extra row does not compile). */
type PeoplePageError = SignInRefused | SignInThrottled | NotAMember
export const peoplePageErrors = {
  // One answer for an unknown address and a wrong password.
  SignInRefused: { status: 401, title: "Sign in", message: "The email or password is not right." },
  SignInThrottled: { status: 429, title: "Sign in", message: "Too many sign-in attempts. Please wait a few minutes and try again." },
  NotAMember: { status: 403, title: "Not your workspace", message: "You are not a member of that workspace." }
} as const satisfies Record<PeoplePageError["_tag"], { readonly status: number; readonly title: string; readonly message: string }>

const signInForm = (options: {
  readonly csrfToken: string
  readonly returnTo: string
  readonly email?: string
  readonly problem?: string
  /** Which app is asking, when sign-in was reached from an authorization request. */
  readonly asking?: Html
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
}) =>
  renderPage({
    title: "Sign in",
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    body: html`<section class="card">
<h1>Sign in</h1>
${options.asking ?? ""}
${options.problem === undefined ? "" : html`<p class="alert" role="alert">${options.problem}</p>`}
<form method="post" action="/signin">
<input type="hidden" name="csrf_token" value="${options.csrfToken}">
<input type="hidden" name="return_to" value="${options.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</section>`
  })

/** The header strip of a signed-in page: the account, the workspace switch and sign-out. Reusable by other pages. */
export const personBar = (person: Person, returnTo: string) =>
  html`<section class="card">
<p>Signed in as <strong>${person.user.name}</strong> <span class="muted">${person.user.email}</span></p>
${person.workspaces.length === 0
  ? html`<p class="muted">You are not a member of any workspace yet.</p>`
  : html`<form method="post" action="/session/workspace">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<input type="hidden" name="return_to" value="${returnTo}">
<label for="workspace_id">Workspace</label>
<select id="workspace_id" name="workspace_id">
${person.workspaces.map((w) =>
  html`<option value="${w.workspace.id}"${w.workspace.id === person.workspaceId ? html` selected` : ""}>${w.workspace.name} (${w.role}, ${w.workspace.plan} plan)</option>`)}
</select>
<button type="submit" class="secondary">Switch workspace</button>
</form>`}
<form method="post" action="/signout" class="inline">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<button type="submit" class="secondary">Sign out</button>
</form>
</section>`

/** What signing in, signing out and switching workspace run on: the people ports, and the outbox their events are written to. */
const peopleRoutesPortServices = [...peoplePortServices, EventOutbox, Transactor] as const

export const PeopleRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const people = yield* People
    const ports = withPorts(peopleRoutesPortServices, yield* Effect.context<PortsOf<typeof peopleRoutesPortServices>>())
    const clients = yield* ClientStore
    const { origin } = yield* Issuer
    const asking = (returnTo: string) => Effect.map(askingApp(clients, returnTo, origin), Option.getOrUndefined)
    const endSession = (request: HttpServerRequest.HttpServerRequest) =>
      Option.match(people.sessionSecret(request), { onNone: () => Effect.void, onSome: signOut }).pipe(ports)

    const signInPage = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      const url = new URL(request.url, origin)
      const returnTo = safeReturnTo(url.searchParams.get("return_to"), origin)
      // The host signs people in (SignIn port): its page, coming back here.
      if (Option.isSome(people.hostSignOutUrl)) return seeOther(people.signInUrl(returnTo))
      if (Option.isSome(yield* people.current(request))) return seeOther(returnTo)
      const pre = yield* people.preSession(request)
      const app = yield* asking(returnTo)
      return pre.set(signInForm({ csrfToken: yield* people.csrfTokenFor(pre.value), returnTo, ...(app === undefined ? {} : { asking: app }) }))
    })

    yield* router.add("GET", "/signin", (request) => signInPage(request))

    const signInPost = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      const form = yield* request.urlParamsBody
      const returnTo = safeReturnTo(field(form, "return_to"), origin)
      if (Option.isSome(people.hostSignOutUrl)) return seeOther(people.signInUrl(returnTo))
      if (!(yield* people.verifyCsrf(request, field(form, "csrf_token"), { signInForm: true }))) return yield* formExpired
      const email = (field(form, "email") ?? "").slice(0, 320)
      const password = (field(form, "password") ?? "").slice(0, passwordMaxLength)
      const address = Option.getOrElse(request.remoteAddress, () => "unknown")
      const outcome = yield* signIn({
        email, password, address
      }).pipe(ports, Effect.result)
      if (outcome._tag === "Success") {
        // A new session on every sign-in; the one the browser held before (if any) ends (checklist M 162).
        yield* endSession(request)
        return people.withSessionCookie(seeOther(returnTo), outcome.success.secret)
      }
      const refusal = outcome.failure
      if (refusal._tag === "StoreUnavailable") return yield* refusal
      const row = peoplePageErrors[refusal._tag]
      const pre = yield* people.preSession(request)
      const app = yield* asking(returnTo)
      return pre.set(signInForm({
        csrfToken: yield* people.csrfTokenFor(pre.value), returnTo, email, status: row.status, problem: row.message,
        ...(app === undefined ? {} : { asking: app }),
        ...(refusal._tag === "SignInThrottled" ? { headers: { "retry-after": String(refusal.retryAfterSeconds) } } : {})
      }))
    })

    yield* router.add("POST", "/signin", (request) => signInPost(request))

    const signOutPost = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      const form = yield* request.urlParamsBody
      if (!(yield* people.verifyCsrf(request, field(form, "csrf_token")))) return yield* formExpired
      // The host's session is the host's to end.
      if (Option.isSome(people.hostSignOutUrl)) return seeOther(people.hostSignOutUrl.value)
      yield* endSession(request)
      return people.withoutSessionCookie(seeOther("/signin"))
    })

    yield* router.add("POST", "/signout", (request) => signOutPost(request))

    const switchTo = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, form: UrlParams.UrlParams, returnTo: string, person: Person) {
      if (!(yield* people.verifyCsrf(request, field(form, "csrf_token")))) return yield* formExpired
      const chosen = WorkspaceId.make(field(form, "workspace_id") ?? "")
      // Signed in by the host: no session of adgate's keeps the choice; the chosen workspace's own page opens
      // (every workspace page carries its workspace in its path).
      if (person.session === null)
        return person.workspaces.some((w) => w.workspace.id === chosen)
          ? seeOther(pagePaths.apiMcp(chosen))
          : renderErrorPage({ ...peoplePageErrors.NotAMember, returnTo })
      return yield* switchWorkspace(person.session, chosen).pipe(
        ports,
        Effect.as(seeOther(returnTo)),
        Effect.catchTag("NotAMember", (e) => Effect.succeed(renderErrorPage({ ...peoplePageErrors[e._tag], returnTo })))
      )
    })

    const sessionWorkspacePost = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
      const form = yield* request.urlParamsBody
      const returnTo = safeReturnTo(field(form, "return_to"), origin)
      return yield* people.requirePerson(request.modify({ url: returnTo }), (person) => switchTo(request, form, returnTo, person))
    })

    yield* router.add("POST", "/session/workspace", (request) => sessionWorkspacePost(request))

    // Where sign-in lands: the API & MCP page of the workspace the person works in.
    yield* router.add("GET", "/", (request) =>
      people.requirePerson(request, (person) =>
        Effect.succeed(person.workspaceId === null
          ? renderPersonPage({
            person,
            title: "No workspace yet",
            body: html`<section class="card"><p>You are not a member of any workspace yet. Ask a workspace admin to add you, then sign in again.</p></section>`
          })
          : seeOther(pagePaths.apiMcp(person.workspaceId)))))
  })
)
