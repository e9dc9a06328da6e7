// The mail reader (spec §Events: "E-mails go to workspace admins when an app is connected, and to the connecting
// person when a change waits for approval"): events → the mail outbox (MailSender sends it). It reads the people (and
// the app) when it handles the event, so a Directory outage fails the pass and the event waits for the next one: the
// mail is late, never lost nor doubled.
import {
  appIdentity, ChangeWaitingMail, ClientStore, Directory, Issuer, MailId, Mailer, Prefix, Secrets, type ConnectionOpened, type OutboxEntry,
  type WriteQueued
} from "@adgate/core"
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
      onSome: (c) => ({ clientId: c.clientId, name: appIdentity(c).name, recognised: c.recognised })
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

/**
 * The connecting person (the connection's approver or the key's creator) is told that a change waits; the words are
 * the ChangeWaitingMail port's (apps/server: mail/changeWaitsMail.ts). Only a write queued with a preview is mailed:
 * the mail says what would change. A person the Directory no longer knows is not mailed.
 */
const mailRequester = Effect.fnUntraced(function* (event: typeof WriteQueued.Type) {
  if (event.summary === null) return
  const user = yield* (yield* Directory).user(event.requestedBy)
  if (Option.isNone(user)) return
  const { subject, text } = yield* (yield* ChangeWaitingMail).compose({
    workspaceId: event.workspaceId, requestId: event.requestId, tool: event.tool, toolTitle: event.toolTitle,
    summary: event.summary, reason: event.reason, expiresAt: event.expiresAt,
    recipient: { email: user.value.email, name: user.value.name }
  })
  yield* (yield* Mailer).enqueue({
    id: MailId.make(yield* (yield* Secrets).generate(Prefix.mail)), to: user.value.email, subject, text,
    createdAt: yield* Clock.currentTimeMillis, sentAt: null
  })
})

export const mailReader = {
  name: "mail",
  handle: (entries: ReadonlyArray<OutboxEntry>) =>
    Effect.forEach(entries, ({ event }) => {
      switch (event._tag) {
        case "ConnectionOpened": return mailAdmins(event)
        case "WriteQueued": return mailRequester(event)
        default: return Effect.void
      }
    }, { discard: true })
} satisfies OutboxReader<unknown, unknown>
