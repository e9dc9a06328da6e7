import { PgClient } from "@effect/sql-pg"
import { Effect, Exit } from "effect"
import { Statement } from "effect/sql"
import { followingCtes, connectionRow } from "../../../packages/adapters-sql/src/followingWrites.ts"
import { sqlNames } from "../../../packages/adapters-sql/src/sqlNames.ts"
const compiler = PgClient.makeCompiler(sqlNames.transformQueryNames, false)
const sql: any = Statement.make(Effect.die("x") as any, compiler, [], undefined)
const conn: any = { id: "con_abc", version: 4, clientId: "cl_x", workspaceId: "ws_1", approverId: "usr_1", scopes: ["tools:read", "tools:write"], surface: "both", platforms: "all", writeMode: "wait", status: "active", endedReason: null, createdAt: 1700000000000, endedAt: null, expiresAt: 1800000000000, roleConfirmedAt: 1700000000000, refresh: { hash: "h".repeat(43), generation: 5, issuedAt: 1700000000000 }, spent: { hash: "g".repeat(43), generation: 4, spentAt: 1700000000000 }, withdrawn: [], lastUsedAt: 1700000000000 }
const tok: any = { hash: "a".repeat(43), connectionId: "con_abc", generation: 5, clientId: "cl_x", workspaceId: "ws_1", scopes: ["tools:read"], surface: "both", issuedAt: 1, expiresAt: 2, revokedAt: null }
const build = () => {
  const ctes: any = followingCtes(sql, "updated", { connections: [], accessTokens: [tok], outbox: { readers: [], events: [] } } as any, "x")
  const e: any = connectionRow.encodeExit(conn, "x"); const row: any = Exit.isSuccess(e) ? e.value : {}; if (!Exit.isSuccess(e)) throw new Error("enc"); if (!Exit.isSuccess(ctes)) console.log("ctes fail", ctes)
  return sql`WITH updated AS (
            UPDATE connections SET ${connectionRow.assignments(row, ["id"])}
            WHERE id = ${conn.id} AND version = ${conn.version - 1}
            RETURNING id
          ), indexed AS (
            INSERT INTO connection_refresh_tokens (hash, connection_id)
            SELECT ${conn.refresh.hash}, id FROM updated
            ON CONFLICT (hash) DO NOTHING
          ), ${sql.join(", ", false)(Exit.isSuccess(ctes) ? ctes.value : [])}
          SELECT id FROM updated`
}
const [text, params] = build().compile()
console.log(text.length, "chars,", params.length, "params", text.slice(0, 200))
const N = 20000
const m = new Map<string, number>()
const bench = (name: string, f: () => unknown) => { for (let r = 0; r < 3; r++) { const t = process.cpuUsage(); for (let i = 0; i < N; i++) f(); const c = process.cpuUsage(t); console.log(name, ((c.user + c.system) / N).toFixed(2), "µs") } }

bench("build + compile", () => build().compile())

