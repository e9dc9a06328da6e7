// The account page (docs/service.md, Pages: "Account"): the signed-in person's name and address, and Change
// password (the current one, the new one twice). The rules are core people/changePassword.ts: the length, the
// current password checked and throttled like sign-in, every other session of the person ended.
import { Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, UrlParams } from "effect/http"
import { changePassword, type PasswordChangeThrottled, passwordMaxLength, passwordMinLength, type PasswordRefused } from "@adgate/core"
import { People, type Person } from "../people/People.ts"
import { html } from "./layout.ts"
import { pagePaths } from "./pagePaths.ts"
import { type PagePorts, withPagePorts } from "./PagePorts.ts"
import { doneAndBack, formExpired, formField, noticeOf, renderPersonPage } from "./workspaceFrame.ts"

/** The page's words for each reason a new password is refused. */
const refusedWords: Readonly<Record<PasswordRefused["reason"], string>> = {
  wrong_current_password: "The current password is not right.",
  too_short: `The new password needs at least ${passwordMinLength} characters.`,
  too_long: `The new password may have at most ${passwordMaxLength} characters.`,
  not_repeated: "The two new passwords are not the same."
}

/** The core's refusals of a password change, as the page says them: one row each. */
type PasswordRefusal = PasswordRefused | PasswordChangeThrottled
export const passwordRefusals = {
  PasswordRefused: (e) => ({ status: 400, message: refusedWords[e.reason] }),
  PasswordChangeThrottled: (e) => ({
    status: 429, message: `Too many wrong current passwords. Try again in ${Math.max(1, Math.ceil(e.retryAfterSeconds / 60))} minutes.`
  })
} as const satisfies { readonly [K in PasswordRefusal["_tag"]]: (e: Extract<PasswordRefusal, { readonly _tag: K }>) => { readonly status: number; readonly message: string } }

const isPasswordRefusal = (e: { readonly _tag: string }): e is PasswordRefusal => Object.hasOwn(passwordRefusals, e._tag)

const accountPage = (person: Person, options: { readonly notice?: ReturnType<typeof noticeOf>; readonly problem?: string; readonly status?: number } = {}) =>
  renderPersonPage({
    person,
    title: "Your account",
    ...(options.status === undefined ? {} : { status: options.status }),
    body: html`${options.notice ?? ""}
<section class="card">
<dl class="facts">
<dt>Name</dt><dd>${person.user.name}</dd>
<dt>Email</dt><dd>${person.user.email}</dd>
<dt>Workspaces</dt><dd><ul class="plain">${person.workspaces.map((w) =>
  html`<li><a href="${pagePaths.apiMcp(w.workspace.id)}">${w.workspace.name}</a> <span class="muted">(${w.role})</span></li>`)}</ul></dd>
</dl>
</section>
${person.session === null ? html`<section class="card"><p>You signed in with the service's own sign-in, where your password is kept.</p></section>` : html`<section class="card">
<h2>Change password</h2>
${options.problem === undefined ? "" : html`<p class="alert" role="alert">${options.problem}</p>`}
<form method="post" action="${pagePaths.accountPassword}">
<input type="hidden" name="csrf_token" value="${person.csrfToken}">
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="${passwordMinLength}" maxlength="${passwordMaxLength}" aria-describedby="new_password_help">
<p class="muted" id="new_password_help">At least ${passwordMinLength} characters. A long phrase is easier to remember and harder to guess than a short jumble.</p>
<label for="new_password_again">New password again</label>
<input id="new_password_again" name="new_password_again" type="password" autocomplete="new-password" required minlength="${passwordMinLength}" maxlength="${passwordMaxLength}">
<p class="muted">Changing it signs you out everywhere else; this browser stays signed in.</p>
<button type="submit">Change password</button>
</form>
</section>`}`
  })

export const AccountRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const ports = withPagePorts(yield* Effect.context<PagePorts>())
    const people = yield* People

    yield* router.add("GET", pagePaths.account, (request) =>
      people.requirePerson(request, (person) => Effect.succeed(accountPage(person, { notice: noticeOf(person) }))).pipe(ports))

    const changePasswordPost = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest, person: Person) {
      const form = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
      if (!(yield* people.verifyCsrf(request, formField(form, "csrf_token")))) return yield* formExpired
      // Signed in by the host (SignIn port): the password is the host's, adgate has none to change.
      if (person.session === null) return accountPage(person, { status: 404 })
      // Longer than the longest password and the form reads no further (as sign-in does).
      const read = (name: string) => (formField(form, name) ?? "").slice(0, passwordMaxLength + 1)
      const outcome = yield* changePassword({
        user: person.user,
        session: person.session.hash,
        address: Option.getOrElse(request.remoteAddress, () => "unknown"),
        currentPassword: read("current_password"),
        newPassword: read("new_password"),
        newPasswordAgain: read("new_password_again")
      }).pipe(Effect.result)
      if (outcome._tag === "Success") {
        const ended = outcome.success.sessionsEnded
        return yield* doneAndBack(pagePaths.account,
          `Your password is changed. ${ended === 0 ? "No other session was signed in." : `${ended} other ${ended === 1 ? "session was" : "sessions were"} signed out.`}`)
      }
      const error = outcome.failure
      if (!isPasswordRefusal(error)) return yield* error
      const row = (passwordRefusals[error._tag] as (e: PasswordRefusal) => { readonly status: number; readonly message: string })(error)
      return accountPage(person, { problem: row.message, status: row.status })
    })

    yield* router.add("POST", pagePaths.accountPassword, (request) =>
      people.requirePerson(request.modify({ url: pagePaths.account }), (person) => changePasswordPost(request, person)).pipe(ports))
  })
)
