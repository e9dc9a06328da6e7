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

/**
 * Maps SqlError to StoreUnavailable for `operation` (e.g. "CodeStore.save"); other errors pass through. One narrow
 * cast is left: TypeScript does not narrow a generic E by the guard, so the error that is not an SqlError is told so.
 */
export const unavailable = (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreUnavailable, R> =>
    Effect.mapError(self, (error) =>
      SqlError.isSqlError(error)
        ? new StoreUnavailable({ operation, message: describeSqlError(error) })
        : error as Exclude<E, SqlError.SqlError>)

/** The Directory's reads answer DirectoryUnavailable ("cannot confirm now"), whatever went wrong underneath. */
export const directoryUnavailable = (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, DirectoryUnavailable, R> =>
    Effect.mapError(self, (error) =>
      new DirectoryUnavailable({
        message: `${operation}: ${
          SqlError.isSqlError(error)
            ? describeSqlError(error)
            : typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
        }`
      }))
