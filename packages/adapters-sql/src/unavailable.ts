// Turns every database failure into the ports' typed errors (StoreUnavailable, DirectoryUnavailable): a store that
// cannot answer is an answer (503, nothing changed), never a defect. Messages name the operation, never a value.
import { DirectoryUnavailable, StoreUnavailable } from "@adgate/core"
import { Effect } from "effect"
import { SqlError } from "effect/sql"

/** The failure as a message for logs: its kind and the driver's text, never a parameter. */
export const describeSqlError = (error: SqlError.SqlError): string => {
  const cause = error.reason.cause
  const detail = typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
    ? cause.message
    : error.message
  return `${error.reason._tag}: ${detail}`
}

/** A failure as a message: an SqlError as describeSqlError tells it, anything else by its own message. */
const describeFailure = (error: unknown): string =>
  SqlError.isSqlError(error)
    ? describeSqlError(error)
    : typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

/** Whether `error` is not an SqlError, as a guard that narrows a generic error type E too. */
const isNotSqlError = <E>(error: E): error is Exclude<E, SqlError.SqlError> => !SqlError.isSqlError(error)

/** Maps SqlError to StoreUnavailable for `operation` (e.g. "CodeStore.save"); other errors pass through. */
export const unavailable = (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreUnavailable, R> =>
    Effect.mapError(self, (error) =>
      isNotSqlError(error) ? error : new StoreUnavailable({ operation, message: describeFailure(error) }))

/** The Directory's reads answer DirectoryUnavailable ("cannot confirm now"), whatever went wrong underneath. */
export const directoryUnavailable = (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, DirectoryUnavailable, R> =>
    Effect.mapError(self, (error) =>
      new DirectoryUnavailable({ message: `${operation}: ${describeFailure(error)}` }))
