// The outbox readers in the background (architecture §Commands and events): every process drains every reader (the
// pending writes of ended credentials, the audit log, the admins' and requesters' mail) every few seconds; the claims
// (FOR UPDATE SKIP LOCKED) make each event handled once however many processes run. A pass that fails (the Directory
// or the database down) is logged and its events wait for the next.
import { inBackground, type OutboxSubscription, outboxSubscriptions } from "@adgate/core"
import { Effect, Layer } from "effect"
import { auditReader } from "./auditReader.ts"
import { mailReader } from "./mailReader.ts"
import { drainReader, type OutboxReader } from "./OutboxReader.ts"
import { withdrawalsReader } from "./withdrawalsReader.ts"

/**
 * One reader for each of `Subscriptions`, in their order: a tuple as long as the list, each element the reader of the
 * subscription in its place (its handler's errors and services are each reader's own).
 */
export type ReadersOf<Subscriptions extends ReadonlyArray<OutboxSubscription>> = {
  readonly [K in keyof Subscriptions]: OutboxReader<Subscriptions[K], unknown, unknown>
}

/**
 * Every reader the outbox keeps events for, in the order a pass drains them (withdrawals first): core's
 * outboxSubscriptions, each paired with its handler. Typed over that list, so a subscription listed there without a
 * reader here, a reader here for a subscription not listed there, or the two lists in different orders do not compile
 * (test/outboxReaders.test.ts checks the type does bite).
 */
export const outboxReaders = [withdrawalsReader, auditReader, mailReader] as const satisfies ReadersOf<typeof outboxSubscriptions>
type Pass = ReturnType<(typeof outboxReaders)[number]["pass"]>

/** The same readers, each typed as any of them, with every reader's errors and services: what drainReader takes. */
const readers: ReadonlyArray<OutboxReader<OutboxSubscription, Effect.Error<Pass>, Effect.Services<Pass>>> = outboxReaders

/** Drains every reader until caught up, failing on the first failure (tests call this to drain explicitly). */
export const drainReaders = Effect.forEach(readers, drainReader)

/** How often the background drains the outbox: the mail and the audit entries follow within seconds. */
export const outboxDrainInterval = "5 seconds"

/**
 * Drains each reader every outboxDrainInterval for the life of the layer, each in its own loop (inBackground), so
 * one reader's failure does not hold back another's.
 */
export const OutboxSchedule = readers
  .map((reader) => inBackground(outboxDrainInterval, `outbox reader ${reader.name} pass failed`, drainReader(reader)))
  .reduce((all, loop) => Layer.merge(all, loop), Layer.empty)
