// The outbox readers (src/readers, spec §Events): a connection opened and ended reach the audit log and the admins'
// mail through the audit and mail readers exactly once, even with two processes draining at once (PostgreSQL: two
// connection pools, FOR UPDATE SKIP LOCKED); an event's rows are written for the readers that take its kind only,
// and rows an earlier release wrote for every reader are drained; a reader pass that fails leaves its events for the
// next pass; and the admins' mail says what the spec asks. PGlite always, PostgreSQL when DATABASE_URL is set.
import {
  advanceTask, auditSubscription, ClientId, ConnectionId, type DomainEvent, MailWords, type AppConnectedFacts, type ChangeWaitingFacts, type MailWordsShape, type Role, Directory, setGuardrails, setMemberRole, DirectoryUnavailable, drainOutbox, EventOutbox, startTask, WriteRequestStore, endConnection, handleTokenRequest, Mailer, Secrets, ConnectionStore,
  ApiKeyId,
  outboxSubscriptions,
  WorkspaceId,
  UserId,
  WriteRequestId
} from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { drainReaders, runHousekeeping } from "../src/index.ts"
import { aWriteRequest, unique } from "@adgate/contract-kit"
import { auditReader } from "../src/readers/auditReader.ts"
import { mailReader } from "../src/readers/mailReader.ts"
import { drainReader } from "../src/readers/OutboxReader.ts"
import { audited } from "./audited.ts"
import { migrations } from "../src/migrations/index.ts"
import { databaseUrl, freshPostgresDatabase, pgliteDatabase, processDatabase, statementsOf } from "./databases.ts"
import { seedAdminWorkspace, seedCode, tokenWorldOnPglite, TokenWorld, twoProcessesOnPostgres } from "./tokenWorld.ts"

type World = Layer.Success<typeof TokenWorld> | SqlClient.SqlClient

/** A code exchanged and its connection ended (by process A): one ConnectionOpened, one ConnectionEnded. */
const connectAndEnd = Effect.gen(function* () {
  const { workspaceId, grant } = yield* seedCode
  const tokens = yield* handleTokenRequest({ params: grant(), basic: null })
  const connection = Option.getOrThrow(yield* (yield* ConnectionStore).findByRefreshHash(yield* (yield* Secrets).hash(tokens.refresh_token)))
  yield* endConnection(connection.id, "disconnected", null)
  const admin = (yield* (yield* Directory).members(workspaceId)).find((m) => m.role === "admin")
  return { workspaceId, adminEmail: admin?.user.email ?? "" }
})

const mailTo = (email: string) => Effect.map(Effect.flatMap(Mailer, (m) => m.pending(10_000)), (all) => all.filter((m) => m.to === email))

const exactlyOnceAcrossProcesses = (a: Layer.Layer<World>, b: Layer.Layer<World>) => Effect.gen(function* () {
  const { workspaceId, adminEmail } = yield* Effect.provide(connectAndEnd, a)
  yield* Effect.all([Effect.provide(drainReaders, a), Effect.provide(drainReaders, b), Effect.provide(drainReaders, b)], { concurrency: "unbounded" })
  const entries = yield* Effect.provide(audited(workspaceId), a)
  assert.deepStrictEqual(entries.map((e) => [e.action, e.detail["reason"] ?? null]), [["connection.approved", null], ["connection.ended", "disconnected"]])
  const mail = yield* Effect.provide(mailTo(adminEmail), b)
  assert.strictEqual(mail.length, 1, "one mail to the one admin, however many processes drained")
  assert.include(mail[0]?.subject ?? "", "Token Ads")
})

const directoryDown = Effect.map(Directory, (directory) => Directory.of({
  ...directory, members: () => Effect.fail(new DirectoryUnavailable({ message: "down for the test" }))
}))

const failedPassWaits = (world: Layer.Layer<World>) => Effect.gen(function* () {
  const { workspaceId, adminEmail } = yield* connectAndEnd
  const failed = yield* Effect.flip(drainReader(mailReader).pipe(Effect.provideServiceEffect(Directory, directoryDown)))
  assert.strictEqual(failed._tag, "DirectoryUnavailable")
  assert.deepStrictEqual(yield* mailTo(adminEmail), [], "the failed pass queued nothing")
  // The audit reader has its own copy of the events: it is not held back by the mail reader's failure.
  assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => e.action), ["connection.approved", "connection.ended"])
  // The next pass finds the event again (the mail reader's one row: its ConnectionOpened) and handles it once.
  assert.strictEqual(yield* drainReader(mailReader), 1)
  assert.strictEqual((yield* mailTo(adminEmail)).length, 1)
  assert.strictEqual(yield* drainReader(mailReader), 0)
  assert.strictEqual(yield* drainReader(auditReader), 0)
}).pipe(Effect.provide(world))

/**
 * Runs `effect` as the test `name` in a TokenWorld on a fresh PGlite, and on a fresh PostgreSQL database (a pool of
 * its own) when DATABASE_URL is set; `source` follows each title.
 */
const onEachDatabase = <E>(title: string, source: string, name: string, effect: Effect.Effect<void, E, World>) => {
  describe(`${title} on PGlite${source}`, () => {
    it.effect(name, () => effect.pipe(Effect.provide(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase())))), { timeout: 60_000 })
  })
  describe.runIf(Option.isSome(databaseUrl))(`${title} on PostgreSQL${source}`, () => {
    it.effect(name, () => Effect.gen(function* () {
      const url = yield* freshPostgresDatabase(Option.getOrElse(databaseUrl, () => ""))
      yield* effect.pipe(Effect.provide(TokenWorld.pipe(Layer.provideMerge(processDatabase(url)))))
    }).pipe(Effect.scoped), { timeout: 60_000 })
  })
}

describe("outbox readers on PGlite", () => {
  it.effect("a connection opened and ended reach the audit log and the admins' mail exactly once (one client, three drains at once)", () =>
    Effect.gen(function* () {
      const world = yield* tokenWorldOnPglite()
      yield* exactlyOnceAcrossProcesses(world, world)
      yield* failedPassWaits(world)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe.runIf(Option.isSome(databaseUrl))("outbox readers on PostgreSQL", () => {
  it.effect("each event reaches each reader once when two processes drain at once (two pools, FOR UPDATE SKIP LOCKED); a failed pass leaves its events for a retry", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoProcessesOnPostgres(Option.getOrElse(databaseUrl, () => ""))
      yield* exactlyOnceAcrossProcesses(a, b)
      yield* failedPassWaits(a)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

/** A task started by a key, planned, waiting, then cancelled: four moves, four task events, four audit entries. */
const taskAudited = Effect.gen(function* () {
  const { workspaceId, userId } = yield* seedAdminWorkspace
  const started = yield* startTask({ workspaceId, createdBy: userId, connectionId: null, apiKeyId: ApiKeyId.make("key_1"), goal: "weekly report" })
  yield* advanceTask(started.id, { _tag: "Planned", plan: { intent: "report" } })
  yield* advanceTask(started.id, { _tag: "AwaitApproval", report: { outcome: "waiting_for_approval" } })
  // A refused move adds no event.
  assert.strictEqual((yield* Effect.flip(advanceTask(started.id, { _tag: "Planned", plan: null })))._tag, "TaskTransitionRefused")
  yield* advanceTask(started.id, { _tag: "Cancel" })
  yield* drainReaders
  const entries = yield* audited(workspaceId)
  assert.deepStrictEqual(entries.map((e) => [e.action, e.actorId, e.connectionId, e.detail]), [
    ["task.started", userId, null, { taskId: started.id, apiKeyId: ApiKeyId.make("key_1") }],
    ["task.planned", null, null, { taskId: started.id, apiKeyId: ApiKeyId.make("key_1") }],
    ["task.waiting_for_approval", null, null, { taskId: started.id, apiKeyId: ApiKeyId.make("key_1") }],
    ["task.cancelled", null, null, { taskId: started.id, apiKeyId: ApiKeyId.make("key_1") }]
  ])
  // Handled once: a second drain finds nothing; the mail reader keeps no mail for them.
  assert.strictEqual(yield* drainReader(auditReader), 0)
  assert.deepStrictEqual(yield* Effect.map(Effect.flatMap(Mailer, (m) => m.pending(10_000)), (all) => all.length), 0)
})

const inOrder = WorkspaceId.make("ws_order")

/** The `n`th event of each reader's own kind: one that reader takes (one for every reader of core's list). */
const numbered: { readonly [Reader in (typeof outboxSubscriptions)[number]["name"]]: (n: string) => DomainEvent } = {
  audit: (n) => ({ _tag: "WriteExpired", at: 0, requestId: WriteRequestId.make(`rwq_${n}`), workspaceId: inOrder }),
  withdrawals: (n) => ({ _tag: "ApiKeyRevoked", at: 0, keyId: ApiKeyId.make(`key_${n}`), workspaceId: inOrder, actorId: null }),
  mail: (n) => ({
    _tag: "ConnectionOpened", at: 0, connectionId: ConnectionId.make(`con_${n}`), workspaceId: inOrder, clientId: ClientId.make("apc_order"),
    approverId: UserId.make("usr_order"), scopes: ["tools:read"], surface: "mcp", platforms: "all", writeMode: "wait"
  })
}

/**
 * Twelve events of each reader's own kind, appended one by one and interleaved (positions past 9, and past 19),
 * reach each reader in that order.
 */
const claimedInOrder = Effect.gen(function* () {
  const outbox = yield* EventOutbox
  const ns = Array.from({ length: 12 }, (_, i) => String(i).padStart(2, "0"))
  for (const n of ns) for (const reader of outboxSubscriptions) yield* outbox.append([numbered[reader.name](n)])
  for (const reader of outboxSubscriptions) {
    const own = ns.map((n) => numbered[reader.name](n))
    const seen: Array<DomainEvent> = []
    const positions: Array<number> = []
    yield* drainOutbox(reader, (entries) => Effect.sync(() => {
      for (const e of entries) {
        positions.push(Number(e.position))
        if (e.event.workspaceId === inOrder && e.event._tag === own[0]!._tag) seen.push(e.event)
      }
    }))
    assert.deepStrictEqual(seen, own, reader.name)
    assert.deepStrictEqual(positions, [...positions].sort((a, b) => a - b), `${reader.name}: positions ascending as numbers`)
  }
})

onEachDatabase("the outbox's order", "", "a reader claims events in the order they were appended, past position 9", claimedInOrder)

onEachDatabase("a task's audit entries", " (docs/tasks.md, Statuses)", "every move of a task reaches the audit log through the audit reader, once", taskAudited)

/** Guardrails set twice: two guardrails.changed entries naming who set them, with the caps before and after. */
const guardrailsAudited = Effect.gen(function* () {
  const { workspaceId, userId } = yield* seedAdminWorkspace
  yield* setGuardrails(workspaceId, userId, { maxDailyBudgetPerAccount: 100 })
  yield* setGuardrails(workspaceId, null, { maxDailyBudgetPerAccount: 500 })
  const caps = (maxDailyBudgetPerAccount: number | null) =>
    ({ maxBudgetChangePercent: null, maxBudgetChangePercentPerDay: null, maxChangesPerDay: null, maxDailyBudgetPerAccount, protectedNames: [] })
  assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => [e.action, e.actorId, e.detail]), [
    ["guardrails.changed", userId, { before: caps(null), after: caps(100) }],
    ["guardrails.changed", null, { before: caps(100), after: caps(500) }]
  ])
})

onEachDatabase("guardrails' audit entries", "", "each setting of the guardrails reaches the audit log with who set them", guardrailsAudited)

/**
 * A member's role set, changed and ended: each member.role_changed entry names the role before, which the
 * Directory's write answers in its one statement (no read of its own), committed with its event.
 */
const memberRolesAudited = Effect.gen(function* () {
  const { workspaceId, userId } = yield* seedAdminWorkspace
  const dana = UserId.make(unique("usr_"))
  yield* (yield* Directory).createUser({ id: dana, email: `${dana}@token.example`, name: "Dana", createdAt: 0 })
  yield* setMemberRole(workspaceId, `${dana}@token.example`, "viewer", userId)
  yield* setMemberRole(workspaceId, `${dana}@token.example`, "editor")
  yield* setMemberRole(workspaceId, `${dana}@token.example`, "none", userId)
  assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => [e.action, e.actorId, e.detail]), [
    ["member.role_changed", userId, { userId: dana, before: null, after: "viewer" }],
    ["member.role_changed", null, { userId: dana, before: "viewer", after: "editor" }],
    ["member.role_changed", userId, { userId: dana, before: "editor", after: null }]
  ])
  assert.isTrue(Option.isNone(yield* (yield* Directory).role(workspaceId, dana)))
})

onEachDatabase("a member's role audit entries", "", "each setting of a member's role reaches the audit log with the role before and after", memberRolesAudited)

/**
 * An upgrade on a database whose outbox still holds WriteQueued rows of the previous release (appended in the seconds
 * before it stopped, or left by a mail reader that could not reach the Directory): those rows lack the call's facts
 * the current WriteQueued requires, and no reader of that release did anything with them (the pipeline wrote their
 * audit entry and mail itself). Migration 0011 marks them done, so that no reader tries to decode them: without it,
 * every pass of every reader failed on them, and no audit entry, mail or withdrawal was ever made again.
 */
const legacyWriteQueuedPassed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const { workspaceId, userId } = yield* seedAdminWorkspace
  // The database as the previous release left it: a WriteQueued of its shape pending for
  // every reader, then an event of this release behind it.
  const legacy = { _tag: "WriteQueued", at: 1, requestId: "rwq_legacy", workspaceId, requestedBy: userId, tool: "ads__pause_campaign" }
  for (const reader of outboxSubscriptions)
    yield* sql`INSERT INTO event_outbox (reader, type, event, created_at) VALUES (${reader.name}, 'WriteQueued', ${JSON.stringify(legacy)}::jsonb, 1)`
  yield* setGuardrails(workspaceId, userId, { maxDailyBudgetPerAccount: 100 })
  // The migration itself, run as the upgrade runs it (later migrations may follow it: it is run directly, not by
  // rewinding the migrations table).
  yield* migrations["0011_outbox_legacy_write_queued"]!
  yield* drainReaders
  // The event behind the old row is handled; the old row made nothing (its entry and mail were made when it was queued).
  assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => e.action), ["guardrails.changed"])
  const pending = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM event_outbox WHERE done_at IS NULL`
  assert.strictEqual(pending[0]?.n, 0)
})

onEachDatabase("an upgrade's outbox", " (migration 0011)", "WriteQueued rows of the previous release left pending do not stop the readers", legacyWriteQueuedPassed)

/** The outbox's rows about one id (a connection, a request), as "reader:type", by reader then position. */
const rowsAbout = (id: string) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ reader: string; type: string }>`SELECT reader, type FROM event_outbox
    WHERE event->>'connectionId' = ${id} OR event->>'requestId' = ${id} ORDER BY reader, position`
  return rows.map((r) => `${r.reader}:${r.type}`)
})

/**
 * A request expired by housekeeping: one WriteExpired row, the audit reader's (the only reader that takes it), in the
 * expiry's one statement; a second pass expires and appends nothing.
 */
const expiredByHousekeeping = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  const request = aWriteRequest({ createdAt: now - 10, expiresAt: now - 1, updatedAt: now - 10 })
  yield* (yield* WriteRequestStore).insert(request)
  assert.strictEqual((yield* runHousekeeping(now)).writeRequestsExpired, 1)
  assert.strictEqual((yield* runHousekeeping(now)).writeRequestsExpired, 0)
  assert.deepStrictEqual(yield* rowsAbout(request.id), ["audit:WriteExpired"])
  const events: Array<unknown> = []
  yield* drainOutbox(auditSubscription, (entries) => Effect.sync(() => { for (const e of entries) events.push(e.event) }))
  assert.deepStrictEqual(events.filter((e) => (e as { _tag: string })._tag === "WriteExpired"),
    [{ _tag: "WriteExpired", at: now, requestId: request.id, workspaceId: request.workspaceId }])
})

onEachDatabase("housekeeping's expiry of write requests", "",
  "expires a due request with one WriteExpired for the reader that takes it (audit), in its one statement; a second pass expires and appends nothing (spec §States: Write request, §Events)",
  expiredByHousekeeping)

/**
 * A code exchanged, then its connection ended: each event's rows are for the readers that take its kind, the
 * ConnectionOpened for the audit log and the admins' mail, the ConnectionEnded for the audit log and the withdrawals.
 */
const rowsForTakers = Effect.gen(function* () {
  const { grant } = yield* seedCode
  const tokens = yield* handleTokenRequest({ params: grant(), basic: null })
  const connection = Option.getOrThrow(yield* (yield* ConnectionStore).findByRefreshHash(yield* (yield* Secrets).hash(tokens.refresh_token)))
  assert.deepStrictEqual(yield* rowsAbout(connection.id), ["audit:ConnectionOpened", "mail:ConnectionOpened"])
  yield* endConnection(connection.id, "disconnected", null)
  assert.deepStrictEqual(yield* rowsAbout(connection.id),
    ["audit:ConnectionOpened", "audit:ConnectionEnded", "mail:ConnectionOpened", "withdrawals:ConnectionEnded"])
})

onEachDatabase("the outbox's rows", "",
  "an exchange writes its ConnectionOpened for audit and mail, an ending its ConnectionEnded for audit and withdrawals (readers subscribe to kinds of event)",
  rowsForTakers)

/**
 * An upgrade on a database whose outbox still holds rows the previous release wrote for every reader: a withdrawals
 * row for a ConnectionOpened, a mail row for a ConnectionEnded. The readers' handlers are typed over the kinds they
 * take (a withdrawals handler has no answer for a ConnectionOpened), so a pass hands them only those: every such row
 * is marked done, handled by nobody, and the readers go on.
 */
const legacyRowsOfUntakenKinds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const { workspaceId, adminEmail } = yield* connectAndEnd
  for (const [reader, type] of [["withdrawals", "ConnectionOpened"], ["mail", "ConnectionEnded"]] as const)
    yield* sql`INSERT INTO event_outbox (reader, type, event, created_at)
      SELECT ${reader}, type, event, created_at FROM event_outbox WHERE reader = 'audit' AND type = ${type}
        AND event->>'workspaceId' = ${workspaceId}`
  yield* drainReaders
  const pending = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM event_outbox WHERE done_at IS NULL`
  assert.strictEqual(pending[0]?.n, 0, "every row done, the legacy ones included")
  assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => e.action), ["connection.approved", "connection.ended"])
  assert.strictEqual((yield* mailTo(adminEmail)).length, 1, "one mail for the connection opened, none for the ending")
})

onEachDatabase("rows of kinds a reader no longer takes", "",
  "rows the previous release wrote for every reader are marked done without reaching a handler that does not take them",
  legacyRowsOfUntakenKinds)

/** A MailWords that keeps the facts it was given and says who each mail is for. */
const recordingWords = () => {
  const connected: Array<AppConnectedFacts> = []
  const waiting: Array<ChangeWaitingFacts> = []
  const words: MailWordsShape = {
    appConnected: (facts) => { connected.push(facts); return { subject: `connected for ${facts.recipient.email}`, text: "" } },
    changeWaiting: (facts) => { waiting.push(facts); return { subject: `waiting for ${facts.recipient.email}`, text: "" } }
  }
  return { connected, waiting, words }
}

/** A member of `workspaceId` with `role`. */
const addMember = (workspaceId: WorkspaceId, role: Role, name: string) => Effect.gen(function* () {
  const directory = yield* Directory
  const id = UserId.make(unique("usr_"))
  yield* directory.createUser({ id, email: `${id}@token.example`, name, createdAt: 0 })
  yield* directory.setRole(workspaceId, id, Option.some(role))
  return { id, email: `${id}@token.example`, name }
})

/**
 * "App connected" goes to the workspace's admins and to nobody else (spec §Events): a second admin gets it, an editor
 * and a viewer of the workspace do not, nor an admin of another workspace; each mail is composed for its recipient,
 * with the connection's id (the link to its row) and the approver.
 */
const appConnectedToAdminsOnly = Effect.gen(function* () {
  const { workspaceId, grant, clientId } = yield* seedCode
  const firstAdmin = (yield* (yield* Directory).members(workspaceId)).find((m) => m.role === "admin")!.user
  const secondAdmin = yield* addMember(workspaceId, "admin", "Second Admin")
  const editor = yield* addMember(workspaceId, "editor", "Eddie")
  const viewer = yield* addMember(workspaceId, "viewer", "Vic")
  const elsewhere = yield* seedAdminWorkspace
  const tokens = yield* handleTokenRequest({ params: grant(), basic: null })
  const connection = Option.getOrThrow(yield* (yield* ConnectionStore).findByRefreshHash(yield* (yield* Secrets).hash(tokens.refresh_token)))
  const recorded = recordingWords()
  yield* drainReader(mailReader).pipe(Effect.provideService(MailWords, recorded.words))
  const queued = yield* Effect.map(Effect.flatMap(Mailer, (m) => m.pending(10_000)), (all) => all.filter((m) => m.subject.startsWith("connected for ")))
  assert.sameMembers(queued.map((m) => m.to), [firstAdmin.email, secondAdmin.email])
  for (const m of queued) assert.strictEqual(m.subject, `connected for ${m.to}`, "each mail composed for its own recipient")
  for (const outsider of [editor.email, viewer.email, `${elsewhere.userId}@token.example`])
    assert.isFalse(queued.some((m) => m.to === outsider), outsider)
  const facts = recorded.connected[0]!
  assert.strictEqual(facts.connectionId, connection.id)
  assert.strictEqual(facts.workspace.name, "Token Ads")
  assert.deepStrictEqual(facts.app, { clientId, name: "Test app", verified: false, documentHost: null })
  assert.deepStrictEqual(facts.approver, { email: firstAdmin.email, name: firstAdmin.name })
  assert.deepStrictEqual(facts.scopes, ["tasks:read", "tools:read"])
})

onEachDatabase("the app-connected mail", "", "goes to every admin of the workspace and to no editor, viewer or other workspace's admin", appConnectedToAdminsOnly)

/**
 * "A change waits" goes to the person who asked (the connecting person) only, naming the workspace's admins and
 * editors (not its viewers) as who can decide; a write queued without a preview is not mailed.
 */
const changeWaitingToRequester = Effect.gen(function* () {
  const { workspaceId, userId: adminId } = yield* seedAdminWorkspace
  const editor = yield* addMember(workspaceId, "editor", "Eddie")
  yield* addMember(workspaceId, "viewer", "Vic")
  const queued = (requestId: string, summary: string | null) => ({
    _tag: "WriteQueued" as const, at: 1, requestId: WriteRequestId.make(requestId), workspaceId, requestedBy: editor.id,
    tool: "ads__set_budget", toolTitle: "Set budget", clientId: null, connectionId: null, apiKeyId: ApiKeyId.make("key_1"),
    reason: "approval" as const, summary, expiresAt: 2
  })
  yield* (yield* EventOutbox).append([queued(unique("rwq_"), "Budget 50.00 → 55.00"), queued(unique("rwq_"), null)])
  const recorded = recordingWords()
  yield* drainReader(mailReader).pipe(Effect.provideService(MailWords, recorded.words))
  const mails = yield* Effect.map(Effect.flatMap(Mailer, (m) => m.pending(10_000)), (all) => all.filter((m) => m.subject.startsWith("waiting for ")))
  assert.deepStrictEqual(mails.map((m) => m.to), [editor.email])
  assert.strictEqual(recorded.waiting.length, 1, "no mail for a write without a preview")
  assert.strictEqual(recorded.waiting[0]!.summary, "Budget 50.00 → 55.00")
  assert.sameMembers(recorded.waiting[0]!.deciders.map((d) => d.email), [`${adminId}@token.example`, editor.email])
})

onEachDatabase("the change-waiting mail", "", "goes to the person who asked, naming the admins and editors as deciders", changeWaitingToRequester)

/** `count` connections of the seeded app to its workspace, approved by its admin, appended to the outbox at once. */
const connectionsOutboxed = (count: number) =>
  Effect.gen(function* () {
    const { workspaceId, clientId } = yield* seedCode
    const admin = (yield* (yield* Directory).members(workspaceId)).find((m) => m.role === "admin")!.user
    const events = Array.from({ length: count }, () => ({
      _tag: "ConnectionOpened" as const, at: 1, connectionId: ConnectionId.make(unique("con_")), workspaceId, clientId,
      approverId: admin.id, scopes: ["tools:read" as const], surface: "mcp" as const, platforms: "all" as const,
      writeMode: "wait" as const
    }))
    yield* (yield* EventOutbox).append(events)
    return { workspaceId, admin, events }
  })

/**
 * A burst of connections (one app, one workspace) is one pass's reads once, not once per event: a mail pass holds
 * PGlite's one session for its whole transaction, and every request waits behind it (bench/README.md, round 8: 504
 * statements for a pass of 100 events before, 100 inserts and four reads after). Each admin still gets one mail per
 * connection, composed for its own connection.
 */
describe("an outbox pass on PGlite", () => {
  it.effect("reads the workspace, its members, the approver and the app once for a pass of many events about them, and queues its mails in one insert", () =>
    Effect.gen(function* () {
      const { admin, events } = yield* connectionsOutboxed(20)
      const recorded = recordingWords()
      const pass = yield* statementsOf(drainReader(mailReader).pipe(Effect.provideService(MailWords, recorded.words)))
      assert.strictEqual(pass.result, 20)
      assert.deepStrictEqual(recorded.connected.map((facts) => facts.connectionId), events.map((e) => e.connectionId))
      const inserts = pass.texts.filter((text) => text.startsWith("INSERT INTO mail_outbox"))
      assert.strictEqual(inserts.length, 1, "the pass's mails (one per connection to the one admin) in one insert")
      assert.strictEqual((yield* mailTo(admin.email)).length, 20)
      // Per pass: BEGIN, the claim (which marks the rows done), the four reads, the insert, COMMIT; then the pass that
      // finds nothing (BEGIN, the claim, COMMIT).
      assert.isAtMost(pass.texts.length, 11, pass.texts.join("\n"))
    }).pipe(Effect.provide(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase())))), { timeout: 60_000 })

  it.effect("claims at most 20 events a pass, so that a pass holds the one session for milliseconds and requests go between passes, and writes a pass's audit entries in one insert", () =>
    Effect.gen(function* () {
      const { workspaceId, events } = yield* connectionsOutboxed(45)
      const drained = yield* statementsOf(drainReader(auditReader))
      assert.strictEqual(drained.result, 45)
      // Passes of 20, 20 and 5: three claims, each in its own transaction, and each pass's entries in one insert.
      assert.strictEqual(drained.texts.filter((text) => /^WITH picked AS MATERIALIZED \(SELECT position FROM event_outbox/.test(text)).length, 3)
      assert.strictEqual(drained.texts.filter((text) => text.startsWith("INSERT INTO audit_entries")).length, 3)
      // Per pass: BEGIN, the claim (which marks the rows done: no statement of its own for that), the insert, COMMIT.
      assert.isAtMost(drained.texts.length, 3 * 4, drained.texts.join("\n"))
      assert.deepStrictEqual((yield* audited(workspaceId)).map((e) => e.connectionId), events.map((e) => e.connectionId))
    }).pipe(Effect.provide(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase())))), { timeout: 60_000 })
})
