// Turns every database failure into the ports' typed errors (StoreUnavailable, DirectoryUnavailable): a store that
// cannot answer is an answer (503, nothing changed), never a defect. Messages name the operation, never a value.
import { DirectoryUnavailable, StoreUnavailable } from "@adgate/core"
import { Effect } from "effect"
import type { SqlError } from "effect/sql"

const describe = (error: SqlError.SqlError): string => {
  const cause = error.reason.cause
  const detail = typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
    ? cause.message
    : error.message
  return `${error.reason._tag}: ${detail}`
}

/** Maps SqlError to StoreUnavailable for `operation` (e.g. "CodeStore.save"); other errors pass through. */
export const unavailable = (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreUnavailable, R> =>
    Effect.catchTag(self as Effect.Effect<A, SqlError.SqlError, R>, "SqlError", (error) =>
      Effect.fail(new StoreUnavailable({ operation, message: describe(error) }))) as Effect.Effect<
        A,
        Exclude<E, SqlError.SqlError> | StoreUnavailable,
        R
      >

/** The Directory's reads answer DirectoryUnavailable ("cannot confirm now"), whatever went wrong underneath. */
export const directoryUnavailable = (operation: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, DirectoryUnavailable, R> =>
    Effect.mapError(self, (error) =>
      new DirectoryUnavailable({
        message: `${operation}: ${
          typeof error === "object" && error !== null && "_tag" in error && error._tag === "SqlError"
            ? describe(error as unknown as SqlError.SqlError)
            : typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
        }`
      }))
