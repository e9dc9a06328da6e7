// PeopleStore on SQL: password hashes (from the PasswordHasher port, never a password) and browser sessions
// found by the SHA-256 of the cookie value. The Session Schema is the session row (tableRow).
import { PeopleStore, Session } from "@adgate/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"

const sessionRow = tableRow(Session, { table: "sessions", key: "hash" })

export const PeopleStoreSql = Layer.effect(PeopleStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(Session, { operation: "PeopleStore.findSession", table: "sessions", key: "hash" })
  const upsertSession = (s: Session, operation: string) =>
    sessionRow.encode(s, operation).pipe(
      Effect.flatMap((r) => sql`INSERT INTO sessions ${sql.insert(r)} ON CONFLICT (hash) DO UPDATE SET ${sql.update(r, ["hash"])}`),
      Effect.asVoid,
      unavailable(operation)
    )
  return PeopleStore.of({
    setPasswordHash: (userId, passwordHash) =>
      sql`INSERT INTO password_hashes ${sql.insert({ userId, passwordHash })}
        ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash`.pipe(
        Effect.asVoid,
        unavailable("PeopleStore.setPasswordHash")
      ),
    passwordHash: (userId) =>
      sql<{ readonly passwordHash: unknown }>`SELECT password_hash FROM password_hashes WHERE user_id = ${userId}`.pipe(
        unavailable("PeopleStore.passwordHash"),
        Effect.map((rows) => Option.filter(Option.fromNullishOr(rows[0]?.passwordHash), (h) => typeof h === "string")),
        Effect.map((hash) => Option.map(hash, String))
      ),
    insertSession: (s) => upsertSession(s, "PeopleStore.insertSession"),
    findSession: (hash) =>
      sql`SELECT * FROM sessions WHERE hash = ${hash}`.pipe(
        unavailable("PeopleStore.findSession"),
        Effect.flatMap(decode)
      ),
    updateSession: (s) => upsertSession(s, "PeopleStore.updateSession"),
    // No index on user_id: the table holds only unexpired sessions (housekeeping deletes the rest), and this runs
    // only when a person's password changes.
    endSessionsOf: (userId, now, except) =>
      sql<{ readonly n: number }>`WITH ended AS (
          UPDATE sessions SET revoked_at = ${now}
          WHERE user_id = ${userId} AND revoked_at IS NULL AND hash IS DISTINCT FROM ${except}
          RETURNING 1
        ) SELECT count(*)::int AS n FROM ended`.pipe(
        unavailable("PeopleStore.endSessionsOf"),
        Effect.map((rows) => Number(rows[0]?.n ?? 0))
      )
  })
}))
