// The tool pipeline's audit entries and mail come from its events (spec §Events): a queued write's
// WriteQueued reaches the audit log (`write_request.queued`) and the connecting person's mail through the audit and
// mail readers exactly once, even with two processes draining at once; an applied write's ToolWriteApplied reaches
// the audit log (`tool.write_applied`) once; a unit of work that fails after the event was appended leaves none.
// The memory ports, PGlite, and PostgreSQL when DATABASE_URL is set (two pools, FOR UPDATE SKIP LOCKED).
import {
  ApiKeyId, ApiKeyStore, AuditLog, callTool, decideWriteRequest, Directory, executeWriteRequest, Issuer, Mailer,
  outboxSubscriptions, Platforms, type Principal, queueWriteRequest, recordToolRun, SecretHash, Transactor, UserId, WorkspaceId,
  WriteRequestStore, type WriteRequestId
} from "@adgate/core"
import { CoreMemory, DirectoryMemory, GrantReaderMemory, OperationsMemory, PlatformsMemory, SecretsWebCrypto, ToolSearchMemory, queueWithoutCall } from "@adgate/core/testing"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Layer, Option, Redacted, Ref } from "effect"
import type { SqlClient } from "effect/sql"
import { drainReader, drainReaders, auditReader, mailReader, outboxReader, SqlDatabase } from "../src/index.ts"
import { audited } from "./audited.ts"
import { databaseUrl, freshPostgresDatabase, pgliteDatabase, tempDataDir } from "./databases.ts"
import { origin, TokenWorld } from "./tokenWorld.ts"

const ws = WorkspaceId.make("ws_events")
const admin = UserId.make("usr_events_admin")
const adminEmail = "admin@events.example"
const keyOf = (writeMode: "wait" | "apply") => ApiKeyId.make(`key_events_${writeMode}`)

const platforms = () => Layer.mergeAll(ToolSearchMemory, ArgumentValidatorAjv, PlatformsMemory({
  accounts: [{ workspaceId: ws, platform: "ads", id: "act_1", name: "Events Ads", status: "ENABLED" }],
  campaigns: [
    { id: "c1", accountId: "act_1", name: "One", dailyBudget: 100, status: "ENABLED" },
    { id: "c2", accountId: "act_1", name: "Two", dailyBudget: 100, status: "ENABLED" }
  ]
}))
const pipelinePorts = Layer.mergeAll(TokenWorld, platforms())
type World = Layer.Success<typeof pipelinePorts>
/** The same ports in memory (its Transactor cannot roll back, so the rollback case is SQL's alone). */
const memoryWorld = () => GrantReaderMemory.pipe(
  Layer.provideMerge(Layer.mergeAll(CoreMemory, OperationsMemory, SecretsWebCrypto, Issuer.layer(origin), platforms())),
  Layer.provideMerge(DirectoryMemory))

/** A paid workspace, its admin, and a live API key per write mode (an approval and an execution check the key). */
const seed = Effect.gen(function* () {
  const directory = yield* Directory
  yield* directory.createWorkspace({ id: ws, name: "Events", plan: "paid", credits: 100, createdAt: 0 })
  yield* directory.createUser({ id: admin, email: adminEmail, name: "Events Admin", createdAt: 0 })
  yield* directory.setRole(ws, admin, Option.some("admin"))
  for (const writeMode of ["wait", "apply"] as const) {
    yield* (yield* ApiKeyStore).insert({
      id: keyOf(writeMode), hash: SecretHash.make(`events-key-${writeMode}`), version: 1, workspaceId: ws, name: writeMode,
      createdBy: admin, scopes: ["tools:read", "tools:write"], toolWrites: writeMode, createdAt: 0, lastUsedAt: null, revokedAt: null
    })
  }
})

const principal = (writeMode: "wait" | "apply"): Principal => ({
  kind: "api_key", workspaceId: ws, userId: admin, scopes: ["tools:read", "tools:write"], surface: "both", platforms: "all",
  writeMode, connectionId: null, apiKeyId: keyOf(writeMode), clientId: null
})

const pause = (writeMode: "wait" | "apply", campaignId: string) =>
  callTool({ principal: principal(writeMode), name: "ads__pause_campaign", arguments: { accountId: "act_1", campaignId }, idempotencyKey: null })

const queued = (campaignId: string) => Effect.flatMap(pause("wait", campaignId), (answer) =>
  answer._tag === "Queued" ? Effect.succeed(answer.requestId) : Effect.die("expected a queued write"))

const mailToAdmin = Effect.map(Effect.flatMap(Mailer, (m) => m.pending(10_000)), (all) => all.filter((m) => m.to === adminEmail))

/** Every event still undone for `reader` (of any kind), claimed done. */
const undone = (reader: string) => Effect.gen(function* () {
  const seen: Array<string> = []
  yield* drainReader(outboxReader({ name: reader, takes: "every" }, (entries) => Effect.sync(() => { for (const e of entries) seen.push(e.event._tag) })))
  return seen
})

const queuedExactlyOnce = (a: Layer.Layer<World>, b: Layer.Layer<World>) => Effect.gen(function* () {
  const requestId = yield* Effect.provide(Effect.andThen(seed, queued("c1")), a)
  // Nothing yet: the entry and the mail are the readers' work.
  assert.deepStrictEqual(yield* Effect.provide(Effect.flatMap(AuditLog, (log) => log.list(ws)), a), [])
  assert.deepStrictEqual(yield* Effect.provide(mailToAdmin, a), [])
  yield* Effect.all([Effect.provide(drainReaders, a), Effect.provide(drainReaders, b), Effect.provide(drainReaders, b)], { concurrency: "unbounded" })
  const entries = yield* Effect.provide(audited(ws), a)
  assert.deepStrictEqual(entries.map((e) => [e.action, e.actorId, e.clientId, e.connectionId, e.detail]), [[
    "write_request.queued", admin, null, null,
    { tool: "ads__pause_campaign", requestId, reason: "approval", summary: `Set "One" to PAUSED`, apiKeyId: keyOf("wait") }
  ]])
  const mail = yield* Effect.provide(mailToAdmin, b)
  assert.strictEqual(mail.length, 1, "one mail to the person who asked, however many processes drained")
  assert.strictEqual(mail[0]?.subject, "A change waits for approval: Pause campaign")
  assert.include(mail[0]?.text ?? "", `Set "One" to PAUSED`)
  assert.include(mail[0]?.text ?? "", requestId)
  // Handled once: a further pass of either reader, from either process, finds nothing.
  assert.strictEqual(yield* Effect.provide(drainReader(auditReader), b), 0)
  assert.strictEqual(yield* Effect.provide(drainReader(mailReader), a), 0)
})

const appliedOnce = (world: Layer.Layer<World>) => Effect.gen(function* () {
  yield* seed
  const requestId = yield* queued("c1")
  const request = Option.getOrThrow(yield* (yield* WriteRequestStore).find(requestId))
  yield* decideWriteRequest({ id: requestId, workspaceId: ws, deciderId: admin, decision: "approve", argumentsHash: request.argumentsHash })
  yield* executeWriteRequest(requestId)
  assert.deepInclude(yield* pause("apply", "c2"), { _tag: "Ran", providerStatus: 200 })
  yield* drainReaders
  const entries = yield* audited(ws)
  assert.deepStrictEqual(entries.map((e) => [e.action, e.actorId, e.detail]), [
    ["write_request.queued", admin, { tool: "ads__pause_campaign", requestId, reason: "approval", summary: `Set "One" to PAUSED`, apiKeyId: keyOf("wait") }],
    ["write_request.approved", admin, { requestId, tool: "ads__pause_campaign", apiKeyId: keyOf("wait") }],
    ["write_request.executed", null, { requestId, tool: "ads__pause_campaign", apiKeyId: keyOf("wait"), providerStatus: 200 }],
    ["tool.write_applied", admin, { tool: "ads__pause_campaign", providerStatus: 200, requestId, summary: `Set "One" to PAUSED`, apiKeyId: keyOf("wait") }],
    ["tool.write_applied", admin, { tool: "ads__pause_campaign", providerStatus: 200, requestId: null, summary: `Set "Two" to PAUSED`, apiKeyId: keyOf("apply") }]
  ])
  // A write that ran at once waits for nobody: the one mail is the queued write's.
  assert.strictEqual((yield* mailToAdmin).length, 1)
  assert.strictEqual(yield* drainReader(auditReader), 0)
}).pipe(Effect.provide(world))

class AfterTheSave extends Data.TaggedError("AfterTheSave")<{}> {}

const rolledBack = (world: Layer.Layer<World>) => Effect.gen(function* () {
  yield* seed
  const transactor = yield* Transactor
  const tool = Option.getOrThrow(Option.fromNullishOr((yield* Platforms).tools.find((t) => t.name === "ads__pause_campaign")))
  // A queued write whose unit fails after the insert and its event: neither is kept.
  const queuedId = yield* Ref.make<WriteRequestId | null>(null)
  const failedQueue = yield* Effect.flip(transactor.atomically(queueWriteRequest({
    workspaceId: ws, connectionId: null, apiKeyId: keyOf("wait"), requestedBy: admin, tool: tool.name,
    arguments: { accountId: "act_1", campaignId: "c1" }, reason: "approval"
  }, { clientId: null, toolTitle: tool.annotations.title, summary: `Set "One" to PAUSED` }).pipe(
    Effect.tap((request) => Ref.set(queuedId, request.id)),
    Effect.andThen(Effect.fail(new AfterTheSave()))
  )))
  assert.strictEqual(failedQueue._tag, "AfterTheSave")
  const id = yield* Ref.get(queuedId)
  assert.isNotNull(id, "the request was inserted inside the unit")
  if (id !== null) assert.isTrue(Option.isNone(yield* (yield* WriteRequestStore).find(id)), "the insert rolled back")
  // A write's record whose unit fails after its ToolWriteApplied was appended: no event either.
  const failedRecord = yield* Effect.flip(transactor.atomically(recordToolRun({
    workspaceId: ws, connectionId: null, apiKeyId: keyOf("apply"), actorId: admin, clientId: null, tool, kind: "write",
    answer: { providerStatus: 200, body: {} }, change: null, requestId: null, reserved: null
  }).pipe(Effect.andThen(Effect.fail(new AfterTheSave())))))
  assert.strictEqual(failedRecord._tag, "AfterTheSave")
  for (const reader of outboxSubscriptions) assert.deepStrictEqual(yield* undone(reader.name), [], reader.name)
  assert.deepStrictEqual(yield* audited(ws), [])
  assert.deepStrictEqual(yield* mailToAdmin, [])
  // The same outbox keeps an event appended by a unit that commits.
  yield* queued("c1")
  assert.deepStrictEqual(yield* undone("mail"), ["WriteQueued"])
}).pipe(Effect.provide(world))

/** Spec §Events mails the person about what would change: a request queued without a preview is audited, not mailed. */
const withoutPreview = (world: Layer.Layer<World>) => Effect.gen(function* () {
  yield* seed
  const request = yield* queueWithoutCall({
    workspaceId: ws, connectionId: null, apiKeyId: keyOf("wait"), requestedBy: admin, tool: "ads__pause_campaign",
    arguments: { accountId: "act_1", campaignId: "c1" }, reason: "approval"
  })
  assert.strictEqual(yield* drainReader(mailReader), 1, "the mail reader handled the event")
  assert.deepStrictEqual(yield* mailToAdmin, [])
  assert.deepStrictEqual((yield* audited(ws)).map((e) => [e.action, e.detail["requestId"], e.detail["summary"]]), [
    ["write_request.queued", request.id, null]
  ])
}).pipe(Effect.provide(world))

const fresh = (build: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.map(Layer.build(pipelinePorts.pipe(Layer.provideMerge(build()))), (context) => Layer.succeedContext(context))

describe("the tool pipeline's events on the memory ports", () => {
  it.effect("a queued write reaches the audit log and the requester's mail exactly once (three drains at once)", () =>
    Effect.gen(function* () {
      const world = Layer.succeedContext(yield* Layer.build(memoryWorld()))
      yield* queuedExactlyOnce(world, world)
    }).pipe(Effect.scoped))
  it.effect("an applied write, approved or run at once, is one tool.write_applied entry", () =>
    Effect.gen(function* () { yield* appliedOnce(Layer.succeedContext(yield* Layer.build(memoryWorld()))) }).pipe(Effect.scoped))
  it.effect("a write queued without a preview is audited and mails nobody", () =>
    Effect.gen(function* () { yield* withoutPreview(Layer.succeedContext(yield* Layer.build(memoryWorld()))) }).pipe(Effect.scoped))
})

describe("the tool pipeline's events on PGlite", () => {
  it.effect("a queued write reaches the audit log and the requester's mail exactly once (one client, three drains at once)", () =>
    Effect.gen(function* () {
      const world = yield* fresh(() => pgliteDatabase())
      yield* queuedExactlyOnce(world, world)
    }).pipe(Effect.scoped), { timeout: 60_000 })
  it.effect("an applied write, approved or run at once, is one tool.write_applied entry", () =>
    Effect.gen(function* () { yield* appliedOnce(yield* fresh(() => pgliteDatabase())) }).pipe(Effect.scoped), { timeout: 60_000 })
  it.effect("a unit of work that fails after the save keeps neither the write nor its event", () =>
    Effect.gen(function* () { yield* rolledBack(yield* fresh(() => pgliteDatabase())) }).pipe(Effect.scoped), { timeout: 60_000 })
  it.effect("a write queued without a preview is audited and mails nobody", () =>
    Effect.gen(function* () { yield* withoutPreview(yield* fresh(() => pgliteDatabase())) }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe.runIf(Option.isSome(databaseUrl))("the tool pipeline's events on PostgreSQL", () => {
  const postgres = (url: string) => () =>
    SqlDatabase({ databaseUrl: Option.some(Redacted.make(url)), dataDir: tempDataDir(), maxConnections: 4 })
  const freshUrl = freshPostgresDatabase(Option.getOrElse(databaseUrl, () => ""))
  it.effect("a queued write reaches the audit log and the requester's mail exactly once (two pools draining at once)", () =>
    Effect.gen(function* () {
      const url = yield* freshUrl
      // Built one after the other: the second finds the migrations done.
      const a = yield* fresh(postgres(url))
      const b = yield* fresh(postgres(url))
      yield* queuedExactlyOnce(a, b)
    }).pipe(Effect.scoped), { timeout: 60_000 })
  it.effect("an applied write, approved or run at once, is one tool.write_applied entry", () =>
    Effect.gen(function* () { yield* appliedOnce(yield* fresh(postgres(yield* freshUrl))) }).pipe(Effect.scoped), { timeout: 60_000 })
  it.effect("a unit of work that fails after the save keeps neither the write nor its event", () =>
    Effect.gen(function* () { yield* rolledBack(yield* fresh(postgres(yield* freshUrl))) }).pipe(Effect.scoped), { timeout: 60_000 })
})
