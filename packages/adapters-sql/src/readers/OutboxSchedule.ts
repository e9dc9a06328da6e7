// The outbox readers in the background (architecture §Commands and events): every process drains every reader (the
// pending writes of ended credentials, the audit log, the admins' mail) every few seconds; the claims (FOR UPDATE SKIP
// LOCKED) make each event handled once however many processes run. A pass that fails (the Directory or the database
// down) is logged and its events wait for the next.
import { Effect, Layer, Schedule } from "effect"
import { auditReader } from "./auditReader.ts"
import { mailReader } from "./mailReader.ts"
import { drainReader, type OutboxReader } from "./OutboxReader.ts"
import { withdrawalsReader } from "./withdrawalsReader.ts"

/**
 * Every reader the outbox keeps events for, in the order a pass drains them. Withdrawals come first: the pending
 * writes of an ended credential should leave the queue before anything else is done about the ending.
 */
const readers: ReadonlyArray<OutboxReader<ReaderError, ReaderServices>> = [withdrawalsReader, auditReader, mailReader]
type Handled = ReturnType<(typeof withdrawalsReader | typeof auditReader | typeof mailReader)["handle"]>
type ReaderError = Effect.Error<Handled>
type ReaderServices = Effect.Services<Handled>

/** The name of every reader the outbox keeps events for (SqlStores' EventOutboxSql). */
export const outboxReaders: ReadonlyArray<string> = readers.map((reader) => reader.name)

/** Drains every reader until caught up, failing on the first failure (tests call this to drain explicitly). */
export const drainReaders = Effect.forEach(readers, drainReader)

const logged = (name: string) => <E extends { readonly _tag: string }, R>(pass: Effect.Effect<number, E, R>) =>
  pass.pipe(Effect.catch((error) =>
    Effect.as(Effect.logWarning("outbox reader pass failed").pipe(Effect.annotateLogs({ reader: name, error: error._tag })), 0)))

/** How often the background drains the outbox: the admins' mail and the audit entries follow within seconds. */
export const outboxDrainInterval = "5 seconds"

/** Drains every reader every outboxDrainInterval for the life of the layer; one reader's failure does not stop another's. */
export const OutboxSchedule = Layer.effectDiscard(Effect.gen(function* () {
  const pass = Effect.forEach(readers, (reader) => logged(reader.name)(drainReader(reader)))
  yield* Effect.forkScoped(Effect.repeat(pass, Schedule.spaced(outboxDrainInterval)))
}))
