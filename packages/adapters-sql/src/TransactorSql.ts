// The Transactor on SQL: one database transaction (BEGIN … COMMIT, a SAVEPOINT when nested) on the SqlClient every
// store uses, so a service's writes commit together or roll back together (docs/decisions.md §Atomicity). On PGlite
// the client's one semaphore is held for the whole transaction, so other fibers' statements wait for it.
import { StoreUnavailable, Transactor } from "@adgate/core"
import { Cause, Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { describeSqlError } from "./unavailable.ts"

/**
 * The transaction's own SqlError (BEGIN, COMMIT, ROLLBACK) as StoreUnavailable for `operation`, the wrapped
 * effect's errors unchanged: typed by the caller's E, so no cast is needed where `unavailable`'s Exclude would be.
 */
const transactionUnavailable = (operation: string) => <E>(error: E | SqlError.SqlError): E | StoreUnavailable =>
  SqlError.isSqlError(error) ? new StoreUnavailable({ operation, message: describeSqlError(error) }) : error

/** A defect the lost connection makes: the driver's SqlError, or a store's StoreUnavailable the rollback's defect swept along. */
const isOutageDefect = (defect: unknown): boolean => SqlError.isSqlError(defect) || defect instanceof StoreUnavailable

/**
 * A transaction whose connection is gone: the driver makes its failed ROLLBACK a defect, and the effect's own failure
 * then comes out as a defect beside it. The database rolls back a transaction whose connection dropped, so nothing
 * was done: the caller gets the effect's typed failure when it is still one, otherwise StoreUnavailable, never a 500.
 * Any other defect stays a defect.
 */
const rollbackLost = (operation: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
  Effect.catchCause(self, (cause): Effect.Effect<never, E | StoreUnavailable> => {
    const defects = cause.reasons.filter(Cause.isDieReason).map((r) => r.defect)
    if (defects.length === 0 || !defects.every(isOutageDefect)) return Effect.failCause(cause)
    const failure = cause.reasons.find(Cause.isFailReason)
    if (failure !== undefined) return Effect.fail(failure.error)
    const swept = defects.find((d): d is StoreUnavailable => d instanceof StoreUnavailable)
    if (swept !== undefined) return Effect.fail(swept)
    const lost = defects.find(SqlError.isSqlError)
    return Effect.fail(new StoreUnavailable({ operation, message: lost === undefined ? "rollback failed" : describeSqlError(lost) }))
  })

export const TransactorSql = Layer.effect(Transactor, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Transactor.of({
    // The stores inside already map their statements' SqlError to StoreUnavailable; what is left here comes from
    // BEGIN, COMMIT or ROLLBACK, and is StoreUnavailable too (a failed COMMIT has changed nothing).
    atomically: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
      sql.withTransaction(effect).pipe(rollbackLost("Transactor.atomically"), Effect.mapError(transactionUnavailable("Transactor.atomically"))),
    // A transaction-scoped advisory lock: released by COMMIT or ROLLBACK, so a dead process never keeps it.
    exclusively: (key) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
      sql.withTransaction(Effect.flatMap(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`, () => effect)).pipe(
        rollbackLost("Transactor.exclusively"),
        Effect.mapError(transactionUnavailable("Transactor.exclusively"))
      )
  })
}))
