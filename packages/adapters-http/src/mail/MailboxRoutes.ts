// The development mailbox (docs/service.md, Mail; docs/decisions.md, Mail and the development mailbox): with no SMTP_URL the
// mail is only logged, so the instance's admins can read it here, as a new user would in their inbox: the newest
// messages (recipient, subject, time) and each message's text with its links clickable. Anyone else, and everyone
// when SMTP_URL is set, gets 404: the page does not exist for them.
import { Context, Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { Issuer, MailId, Mailer, type MailMessage } from "@adgate/core"
import type { Person } from "../people/People.ts"
import { People } from "../people/People.ts"
import { formatWhen } from "../pages/formatting.ts"
import { html, type Html, renderErrorPage } from "../pages/layout.ts"
import { pagePaths } from "../pages/pagePaths.ts"
import { renderPersonPage } from "../pages/workspaceFrame.ts"
import { linkedText } from "./linkedText.ts"
import { RequestId } from "../security.ts"

export interface DevelopmentMailboxShape {
  /** True when mail is not sent over SMTP (no SMTP_URL): only then does the page exist. */
  readonly open: boolean
  /** The instance's admins by e-mail address (ADGATE_ADMIN_EMAIL, default admin@example.com). */
  readonly instanceAdmins: ReadonlyArray<string>
}

/** Closed unless the server opens it: a composition that says nothing has no mailbox page. */
export const DevelopmentMailbox = Context.Reference<DevelopmentMailboxShape>("adapters-http/DevelopmentMailbox", {
  defaultValue: () => ({ open: false, instanceAdmins: [] })
})

/** How many of the newest messages the list shows. */
export const mailboxSize = 50

const notFound = Effect.map(Effect.service(RequestId), (requestId) =>
  renderErrorPage({ status: 404, title: "Not found", message: "There is no page at this address.", requestId }))

const isInstanceAdmin = (mailbox: DevelopmentMailboxShape, person: Person) =>
  mailbox.instanceAdmins.some((email) => email.trim().toLowerCase() === person.user.email.trim().toLowerCase())


const list = (mails: ReadonlyArray<MailMessage>): Html =>
  mails.length === 0
    ? html`<p class="muted">No mail yet. Connect an app or queue a change that waits, and its mail appears here.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Time</th></tr></thead>
<tbody>
${mails.map((m) => html`<tr><td>${m.to}</td><td><a href="${pagePaths.mailboxMessage(m.id)}">${m.subject}</a></td><td>${formatWhen(m.createdAt)}</td></tr>`)}
</tbody>
</table></div>`

const intro = html`<p class="notice">This server sends no mail (SMTP_URL is not set), so its messages are kept here. Only the instance's admins see this page.</p>`

export const MailboxRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const people = yield* People
    const mailer = yield* Mailer
    const { origin } = yield* Issuer
    const mailbox = yield* DevelopmentMailbox
    /** Runs `f` for an instance admin of an open mailbox; 404 for anyone else, sign-in first for nobody. */
    const forInstanceAdmin = Effect.fnUntraced(function* <E, R>(f: (person: Person) => Effect.Effect<ReturnType<typeof renderPersonPage>, E, R>) {
      if (!mailbox.open) return yield* notFound
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* people.requirePerson(request, (person) => isInstanceAdmin(mailbox, person) ? f(person) : notFound)
    })
    const mailPage = Effect.fnUntraced(function* (person: Person) {
      const id = (yield* HttpRouter.params)["mailId"] ?? ""
      const found = yield* mailer.find(MailId.make(id))
      if (Option.isNone(found)) return yield* notFound
      const mail = found.value
      return renderPersonPage({ person, title: mail.subject, body: html`<p><a href="${pagePaths.mailbox}">← Mailbox</a></p>
<section class="card">
<dl>
<dt>To</dt><dd>${mail.to}</dd>
<dt>Time</dt><dd>${formatWhen(mail.createdAt)}</dd>
</dl>
<pre class="mail-text">${linkedText(mail.text, origin)}</pre>
</section>` })
    })

    yield* router.add("GET", pagePaths.mailbox, () =>
      forInstanceAdmin((person) => Effect.map(mailer.recent(mailboxSize), (mails) =>
        renderPersonPage({ person, title: "Mailbox", body: html`${intro}
<section class="card">
<h2>Newest messages</h2>
${list(mails)}
</section>` }))))

    yield* router.add("GET", "/mailbox/:mailId", () =>
      forInstanceAdmin(mailPage))
  })
)
