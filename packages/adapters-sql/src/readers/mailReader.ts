// The mail reader (spec §Events: "E-mails go to workspace admins when an app is connected, and to the connecting
// person when a change waits for approval"): events → the mail outbox (MailSender sends it). Which events: core's
// mailSubscription; this reader decides who gets what and gathers the facts; the words are the MailWords port's
// (adapters-http/src/mail/mailWords.ts, provided by the server). It reads the people (and the app) when it handles
// the event, so a Directory outage fails the pass and the event waits for the next one: the mail is late, never lost
// nor doubled.
import {
  appIdentity, ClientStore, Directory, type MailedEvent, Mailer, mailSubscription, MailWords, queuedMailId, type ClientId,
  type ConnectionOpened, type MailMessage, type MailPerson, type OutboxEntry, type UserId, type WorkspaceId, type WriteQueued
} from "@adgate/core"
import { Clock, Effect, Option } from "effect"
import { outboxReader } from "./OutboxReader.ts"

const person = (user: { readonly email: string; readonly name: string }): MailPerson => ({ email: user.email, name: user.name })

const workspaceFacts = (workspaceId: WorkspaceId) =>
  Effect.map(Effect.flatMap(Directory, (d) => d.workspace(workspaceId)), (found) => ({
    id: workspaceId,
    name: Option.match(found, { onNone: () => workspaceId, onSome: (w) => w.name })
  }))

/** `read` answered once per key for the life of one pass: the first answer is kept, a failure is not. */
const once = <K, A, E, R>(read: (key: K) => Effect.Effect<A, E, R>) => {
  const kept = new Map<K, A>()
  return (key: K): Effect.Effect<A, E, R> =>
    kept.has(key) ? Effect.succeed(kept.get(key)!) : Effect.tap(read(key), (answer) => Effect.sync(() => kept.set(key, answer)))
}

/**
 * What one pass reads about the events' workspaces, people and apps, each read once per pass (one transaction)
 * however many of its events name it: a burst of connections of one app to one workspace (a pass of 100 events) is
 * then 100 inserts and four reads, not 500 statements, which on PGlite's one session is the time every request waits
 * behind the pass (bench/README.md, round 8).
 */
const passReads = Effect.gen(function* () {
  const directory = yield* Directory
  const clients = yield* ClientStore
  return {
    members: once((workspaceId: WorkspaceId) => directory.members(workspaceId)),
    user: once((userId: UserId) => directory.user(userId)),
    workspace: once(workspaceFacts),
    client: once((clientId: ClientId) => clients.find(clientId))
  }
})
type PassReads = Effect.Success<typeof passReads>

/**
 * One mail to queue. Its id comes from `cause` (the event: its kind and the id it is about) and the recipient, so the
 * same event handled again queues nothing new, and every send of it carries one Message-ID (core's queuedMailId).
 */
const mailOf = (cause: string, to: string, mail: { readonly subject: string; readonly text: string }) =>
  Effect.gen(function* () {
    return {
      id: yield* queuedMailId(cause, to), to, subject: mail.subject, text: mail.text,
      createdAt: yield* Clock.currentTimeMillis, sentAt: null, version: 0, attempt: 0, leaseUntil: null
    } satisfies MailMessage
  })

/** Every admin of the workspace, and only its admins (not its editors or viewers), is told that an app was connected. */
const mailAdmins = Effect.fnUntraced(function* (reads: PassReads, event: typeof ConnectionOpened.Type, queue: Array<MailMessage>) {
  const members = yield* reads.members(event.workspaceId)
  const approver = yield* reads.user(event.approverId)
  const workspace = yield* reads.workspace(event.workspaceId)
  const client = yield* reads.client(event.clientId)
  const words = yield* MailWords
  const facts = {
    workspace, connectionId: event.connectionId,
    app: Option.match(client, {
      onNone: () => ({ clientId: event.clientId, name: null, verified: false, documentHost: null }),
      onSome: (c) => ({ clientId: c.clientId, ...appIdentity(c) })
    }),
    approver: Option.getOrNull(Option.map(approver, person)), approverId: event.approverId,
    scopes: event.scopes, surface: event.surface, platforms: event.platforms, writeMode: event.writeMode
  }
  for (const admin of members.filter((m) => m.role === "admin"))
    queue.push(yield* mailOf(`ConnectionOpened:${event.connectionId}`, admin.user.email, words.appConnected({ ...facts, recipient: person(admin.user) })))
})

/**
 * The connecting person (the connection's approver or the key's creator) is told that a change waits, with who can
 * decide (the workspace's admins and editors). Only a write queued with a preview is mailed: the mail says what
 * would change. A person the Directory no longer knows is not mailed.
 */
const mailRequester = Effect.fnUntraced(function* (reads: PassReads, event: typeof WriteQueued.Type, queue: Array<MailMessage>) {
  if (event.summary === null) return
  const user = yield* reads.user(event.requestedBy)
  if (Option.isNone(user)) return
  const members = yield* reads.members(event.workspaceId)
  const workspace = yield* reads.workspace(event.workspaceId)
  const mail = (yield* MailWords).changeWaiting({
    recipient: person(user.value), workspace, requestId: event.requestId, tool: event.tool, toolTitle: event.toolTitle,
    summary: event.summary, reason: event.reason, expiresAt: event.expiresAt,
    deciders: members.filter((m) => m.role === "admin" || m.role === "editor").map((m) => person(m.user))
  })
  queue.push(yield* mailOf(`WriteQueued:${event.requestId}`, user.value.email, mail))
})

// The pass's mails are queued at once: one insert for the pass on SQL, not one per mail. The switch names each kind
// the subscription takes, and only those: a case for another kind does not compile.
export const mailReader = outboxReader(mailSubscription, (entries: ReadonlyArray<OutboxEntry<MailedEvent>>) =>
  Effect.gen(function* () {
    const reads = yield* passReads
    const queue: Array<MailMessage> = []
    for (const { event } of entries) {
      switch (event._tag) {
        case "ConnectionOpened": yield* mailAdmins(reads, event, queue); break
        case "WriteQueued": yield* mailRequester(reads, event, queue); break
        default: unmailed(event)
      }
    }
    yield* (yield* Mailer).enqueue(queue)
  }))

/** Compiles only when the switch above named every kind mailSubscription takes. */
const unmailed = (event: never): never => {
  throw new Error(`no mail decided for ${(event as { readonly _tag: string })._tag}`)
}
