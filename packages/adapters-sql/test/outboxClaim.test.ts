// An outbox claim takes its rows by marking them done in the caller's transaction (src/EventOutboxSql.ts), so it runs
// only inside one: outside a transaction its marks would commit before a handler ran, and a pass that then failed
// would lose its events. Such a call is a bug and dies, leaving the rows for drainOutbox, whose claim runs inside
// Transactor.atomically. PGlite, and PostgreSQL when DATABASE_URL is set.
import { drainOutbox, EventOutbox, type OutboxSubscription, WorkspaceId, WriteRequestId } from "@adgate/core"
import { unique } from "@adgate/contract-kit"
import { assert, describe, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { EventOutboxSql, TransactorSql } from "../src/index.ts"
import { backends } from "./databases.ts"

const probe = { name: "claim-probe", takes: "every" } as const satisfies OutboxSubscription

/** Two events about a request of a workspace of its own, appended for the probe reader. */
const appendTwo = Effect.gen(function* () {
  const workspaceId = WorkspaceId.make(unique("ws_claim_"))
  const requestId = WriteRequestId.make(unique("rwq_claim_"))
  yield* (yield* EventOutbox).append([
    { _tag: "WriteExpired", at: 1, requestId, workspaceId },
    { _tag: "WriteRejected", at: 2, requestId, workspaceId, deciderId: "usr_claim" }
  ])
  return workspaceId
})

/** How many of the probe's rows about `workspaceId` are not done. */
const undoneAbout = (workspaceId: WorkspaceId) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM event_outbox
    WHERE reader = ${probe.name} AND done_at IS NULL AND event->>'workspaceId' = ${workspaceId}`.pipe(Effect.orDie)
  return rows[0]?.n
})

for (const [name, enabled, database] of backends) describe.runIf(enabled)(`the outbox's claim on ${name}`, () => {
  layer(Layer.mergeAll(EventOutboxSql([probe]), TransactorSql).pipe(Layer.provideMerge(database())), { timeout: "60 seconds" })(name, (it) => {
    it.effect("a claim outside a transaction dies, marking nothing done; drainOutbox's claim, inside one, takes the rows", () =>
      Effect.gen(function* () {
        const workspaceId = yield* appendTwo
        const outside = yield* Effect.exit((yield* EventOutbox).claim(probe.name, 10))
        assert.isTrue(Exit.isFailure(outside))
        if (Exit.isFailure(outside)) {
          // A defect, not a typed failure: no StoreUnavailable for the caller to answer 503 with and retry.
          assert.isFalse(outside.cause.reasons.some(Cause.isFailReason))
          const defects = outside.cause.reasons.filter(Cause.isDieReason).map((r) => r.defect)
          assert.strictEqual(defects.length, 1)
          assert.include(String(defects[0]), "outside a transaction")
        }
        assert.strictEqual(yield* undoneAbout(workspaceId), 2, "the refused claim marked no row done")
        const handled: Array<string> = []
        while ((yield* drainOutbox(probe, (entries) => Effect.sync(() => {
          for (const { event } of entries) if (event.workspaceId === workspaceId) handled.push(event._tag)
        }))) > 0) { /* until caught up */ }
        assert.deepStrictEqual(handled, ["WriteExpired", "WriteRejected"])
        assert.strictEqual(yield* undoneAbout(workspaceId), 0)
      }))
  })
})
