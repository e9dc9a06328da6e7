// The mail reader (spec §Events: "E-mails go to workspace admins when an app is connected"): events → the mail
// outbox (MailSender sends it). It reads the admins, the approver and the app when it handles the event, so a
// Directory outage fails the pass and the event waits for the next one: the mail is late, never lost nor doubled.
import { ClientStore, Directory, Issuer, MailId, Mailer, Prefix, Secrets, type ConnectionOpened, type OutboxEntry } from "@adgate/core"
import { Clock, Effect, Option } from "effect"
import { composeConnectionMail } from "./connectionOpenedMail.ts"
import type { OutboxReader } from "./OutboxReader.ts"

const mailAdmins = Effect.fnUntraced(function* (event: typeof ConnectionOpened.Type) {
  const directory = yield* Directory
  const members = yield* directory.members(event.workspaceId)
  const approver = yield* directory.user(event.approverId)
  const workspace = yield* directory.workspace(event.workspaceId)
  const client = yield* (yield* ClientStore).find(event.clientId)
  const { subject, text } = composeConnectionMail(event, {
    app: Option.match(client, {
      onNone: () => ({ clientId: event.clientId, name: null, recognised: false }),
      onSome: (c) => ({ clientId: c.clientId, name: c.name, recognised: c.recognised })
    }),
    approver: Option.getOrNull(approver),
    workspaceName: Option.match(workspace, { onNone: () => event.workspaceId, onSome: (w) => w.name })
  }, (yield* Issuer).origin)
  const mailer = yield* Mailer
  const secrets = yield* Secrets
  const now = yield* Clock.currentTimeMillis
  for (const admin of members.filter((m) => m.role === "admin"))
    yield* mailer.enqueue({ id: MailId.make(yield* secrets.generate(Prefix.mail)), to: admin.user.email, subject, text, createdAt: now, sentAt: null })
})

export const mailReader = {
  name: "mail",
  handle: (entries: ReadonlyArray<OutboxEntry>) =>
    Effect.forEach(entries, ({ event }) => (event._tag === "ConnectionOpened" ? mailAdmins(event) : Effect.void), { discard: true })
} satisfies OutboxReader<unknown, unknown>
