// PeopleStore on SQL: password hashes (from the PasswordHasher port, never a password) and browser sessions
// found by the SHA-256 of the cookie value.
import { PeopleStore, Session } from "@adgate/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { decodeFirstRow } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const PeopleStoreSql = Layer.effect(PeopleStore, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decode = decodeFirstRow(Session, { operation: "PeopleStore.findSession", table: "sessions", key: "hash" })
  const upsertSession = (s: Session, operation: string) =>
    sql`INSERT INTO sessions (hash, user_id, workspace_id, created_at, expires_at, revoked_at)
      VALUES (${s.hash}, ${s.userId}, ${s.workspaceId}, ${s.createdAt}, ${s.expiresAt}, ${s.revokedAt})
      ON CONFLICT (hash) DO UPDATE SET user_id = excluded.user_id, workspace_id = excluded.workspace_id,
        created_at = excluded.created_at, expires_at = excluded.expires_at, revoked_at = excluded.revoked_at`.pipe(
      Effect.asVoid,
      unavailable(operation)
    )
  return PeopleStore.of({
    setPasswordHash: (userId, passwordHash) =>
      sql`INSERT INTO password_hashes (user_id, password_hash) VALUES (${userId}, ${passwordHash})
        ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash`.pipe(
        Effect.asVoid,
        unavailable("PeopleStore.setPasswordHash")
      ),
    passwordHash: (userId) =>
      sql<{ password_hash: unknown }>`SELECT password_hash FROM password_hashes WHERE user_id = ${userId}`.pipe(
        unavailable("PeopleStore.passwordHash"),
        Effect.map((rows) => Option.filter(Option.fromNullishOr(rows[0]?.password_hash), (h) => typeof h === "string")),
        Effect.map((hash) => Option.map(hash, String))
      ),
    insertSession: (s) => upsertSession(s, "PeopleStore.insertSession"),
    findSession: (hash) =>
      sql`SELECT * FROM sessions WHERE hash = ${hash}`.pipe(
        unavailable("PeopleStore.findSession"),
        Effect.flatMap(decode)
      ),
    updateSession: (s) => upsertSession(s, "PeopleStore.updateSession")
  })
}))
