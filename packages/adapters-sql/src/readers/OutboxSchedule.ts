// The outbox readers in the background (architecture §Commands and events): every process drains every reader (the
// pending writes of ended credentials, the audit log, the admins' and requesters' mail) every few seconds; the claims
// (FOR UPDATE SKIP LOCKED) make each event handled once however many processes run. A pass that fails (the Directory
// or the database down) is logged and its events wait for the next.
import { inBackground, type OutboxSubscription } from "@adgate/core"
import { Effect, Layer } from "effect"
import { auditReader } from "./auditReader.ts"
import { mailReader } from "./mailReader.ts"
import { drainReader, type OutboxReader } from "./OutboxReader.ts"
import { withdrawalsReader } from "./withdrawalsReader.ts"

/**
 * Every reader the outbox keeps events for, in the order a pass drains them. Withdrawals come first: the pending
 * writes of an ended credential should leave the queue before anything else is done about the ending.
 */
const readers: ReadonlyArray<OutboxReader<ReaderError, ReaderServices>> = [withdrawalsReader, auditReader, mailReader]
type Pass = ReturnType<(typeof withdrawalsReader | typeof auditReader | typeof mailReader)["pass"]>
type ReaderError = Effect.Error<Pass>
type ReaderServices = Effect.Services<Pass>

/**
 * Every reader the outbox keeps events for, each for the kinds it takes (SqlStores' EventOutboxSql, housekeeping's
 * WriteExpired rows).
 */
export const outboxReaders: ReadonlyArray<OutboxSubscription> = readers

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
