import { PgClient } from "@effect/sql-pg"
import { Effect, Exit } from "effect"
import { Statement } from "effect/sql"
import { connectionRow, accessTokenRow } from "../../../packages/adapters-sql/src/followingWrites.ts"
import { sqlNames } from "../../../packages/adapters-sql/src/sqlNames.ts"
const compiler = PgClient.makeCompiler(sqlNames.transformQueryNames, false)
const sql: any = Statement.make(Effect.die("x") as any, compiler, [], undefined)
const conn: any = { id: "con_abc", version: 4, clientId: "cl_x", workspaceId: "ws_1", approverId: "usr_1", scopes: ["tools:read", "tools:write"], surface: "both", platforms: "all", writeMode: "wait", status: "active", endedReason: null, createdAt: 1700000000000, endedAt: null, expiresAt: 1800000000000, roleConfirmedAt: 1700000000000, refresh: { hash: "h".repeat(43), generation: 5, issuedAt: 1700000000000 }, spent: null, withdrawn: [], lastUsedAt: 1700000000000 }
const tok: any = { hash: "a".repeat(43), connectionId: "con_abc", generation: 5, clientId: "cl_x", workspaceId: "ws_1", scopes: ["tools:read"], surface: "both", issuedAt: 1, expiresAt: 2, revokedAt: null }
const jsonbC = new Set(["scopes", "platforms", "refresh", "spent", "withdrawn"])
const oldInsertSelect = (row: any, jsonb: Set<string>) => {
  const fields = Object.keys(row); const comma = sql.join(", ", false)
  return sql`(${comma(fields.map((field) => sql`${sql(field)}`))}) SELECT ${comma(fields.map((field) => jsonb.has(field) ? sql`${row[field]}::jsonb` : sql`${row[field]}`))}`
}
const row = (connectionRow.encodeExit(conn, "x") as any).value
const trow = (accessTokenRow.encodeExit(tok, "x") as any).value
const a = sql`UPDATE connections SET ${sql.update(row, ["id"])} WHERE x; INSERT INTO connections ${oldInsertSelect(row, jsonbC)}; INSERT INTO access_tokens ${oldInsertSelect(trow, new Set(["scopes"]))} FROM y`.compile()
const b = sql`UPDATE connections SET ${connectionRow.assignments(row, ["id"])} WHERE x; INSERT INTO connections ${connectionRow.insertSelect(row)}; INSERT INTO access_tokens ${accessTokenRow.insertSelect(trow)} FROM y`.compile()
console.log(a[0] === b[0], JSON.stringify(a[1]) === JSON.stringify(b[1]))
console.log(b[0])
