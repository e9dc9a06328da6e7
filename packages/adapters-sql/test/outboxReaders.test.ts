// One list of the outbox's readers (architecture §Commands and events): core's outboxSubscriptions names them, in the
// order a pass drains them, and the SQL readers (src/readers/OutboxSchedule.ts) pair each with its handler. The type
// of the readers' list makes a disagreement impossible to build: a subscription without a reader, a reader of a
// subscription core does not list, or the two in different orders do not compile. The first test checks that the type
// does bite (its `@ts-expect-error` lines fail `tsc --noEmit` if they stop being errors); the others check the lists
// the outboxes are built from at run time.
import { EventOutbox, outboxSubscriptions, type OutboxSubscription } from "@adgate/core"
import { memoryOutboxReaders } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlStores } from "../src/index.ts"
import { auditReader } from "../src/readers/auditReader.ts"
import { mailReader } from "../src/readers/mailReader.ts"
import { outboxReader } from "../src/readers/OutboxReader.ts"
import { outboxReaders, type ReadersOf } from "../src/readers/OutboxSchedule.ts"
import { withdrawalsReader } from "../src/readers/withdrawalsReader.ts"
import { pgliteDatabase } from "./databases.ts"

/** A subscription core does not list, and its reader. */
const unlisted = { name: "unlisted", takes: "every" } as const satisfies OutboxSubscription
const unlistedReader = outboxReader(unlisted, () => Effect.void)

/** A reader's subscription as core lists it: its name and the kinds it takes. */
const subscriptionOf = ({ name, takes }: OutboxSubscription): OutboxSubscription => ({ name, takes })

describe("the outbox's readers are core's one list of subscriptions", () => {
  it("a readers' list that misses one of core's subscriptions, has one core does not list, or keeps another order does not compile", () => {
    type Core = ReadersOf<typeof outboxSubscriptions>
    void ([withdrawalsReader, auditReader, mailReader] as const satisfies Core)
    // @ts-expect-error the mail reader is missing
    void ([withdrawalsReader, auditReader] as const satisfies Core)
    // @ts-expect-error a reader of a subscription core does not list
    void ([withdrawalsReader, auditReader, mailReader, unlistedReader] as const satisfies Core)
    // @ts-expect-error the audit reader drained before the withdrawals
    void ([auditReader, withdrawalsReader, mailReader] as const satisfies Core)
    // @ts-expect-error a subscription added to core's list with no reader for it
    void ([withdrawalsReader, auditReader, mailReader] as const satisfies ReadersOf<readonly [...typeof outboxSubscriptions, typeof unlisted]>)
  })

  it("the readers drained are core's subscriptions, in its order, each with the kinds core says it takes", () => {
    assert.deepStrictEqual(outboxReaders.map(subscriptionOf), outboxSubscriptions.map(subscriptionOf))
  })

  it.effect("the SQL outbox and the in-memory compositions keep events for core's list", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual((yield* EventOutbox).readers.map(subscriptionOf), outboxSubscriptions.map(subscriptionOf))
      assert.deepStrictEqual(memoryOutboxReaders.map(subscriptionOf), outboxSubscriptions.map(subscriptionOf))
    }).pipe(Effect.provide(SqlStores.pipe(Layer.provide(pgliteDatabase())))), { timeout: 60_000 })
})
