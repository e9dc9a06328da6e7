// The Transactor on SQL: one database transaction (BEGIN … COMMIT, a SAVEPOINT when nested) on the SqlClient every
// store uses, so a service's writes commit together or roll back together (docs/decisions.md §Atomicity). On PGlite
// the client's one semaphore is held for the whole transaction, so other fibers' statements wait for it.
import { StoreUnavailable, Transactor } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { describeSqlError } from "./unavailable.ts"

/**
 * The transaction's own SqlError (BEGIN, COMMIT, ROLLBACK) as StoreUnavailable for `operation`, the wrapped
 * effect's errors unchanged: typed by the caller's E, so no cast is needed where `unavailable`'s Exclude would be.
 */
const transactionUnavailable = (operation: string) => <E>(error: E | SqlError.SqlError): E | StoreUnavailable =>
  SqlError.isSqlError(error) ? new StoreUnavailable({ operation, message: describeSqlError(error) }) : error

export const TransactorSql = Layer.effect(Transactor, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Transactor.of({
    // The stores inside already map their statements' SqlError to StoreUnavailable; what is left here comes from
    // BEGIN, COMMIT or ROLLBACK, and is StoreUnavailable too (a failed COMMIT has changed nothing).
    atomically: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
      sql.withTransaction(effect).pipe(Effect.mapError(transactionUnavailable("Transactor.atomically"))),
    // A transaction-scoped advisory lock: released by COMMIT or ROLLBACK, so a dead process never keeps it.
    exclusively: (key) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
      sql.withTransaction(Effect.flatMap(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`, () => effect)).pipe(
        Effect.mapError(transactionUnavailable("Transactor.exclusively"))
      )
  })
}))
