import { Connection, Client } from "@adgate/core"
import { Schema, Exit } from "effect"
const conn = { id: "con_abc", version: 3, clientId: "cl_x", workspaceId: "ws_1", approverId: "usr_1", scopes: ["tools:read", "tools:write"], surface: "both", platforms: "all", writeMode: "wait", status: "active", endedReason: null, createdAt: 1700000000000, endedAt: null, expiresAt: 1800000000000, roleConfirmedAt: 1700000000000, refresh: { hash: "h".repeat(43), generation: 5, issuedAt: 1700000000000 }, spent: { hash: "g".repeat(43), generation: 4, spentAt: 1700000000000 }, withdrawn: [], lastUsedAt: 1700000000000 }
const dec = Schema.decodeUnknownExit(Connection as any)
const enc = Schema.encodeExit(Connection as any)
const N = 50000
const bench = (name: string, f: () => unknown) => { for (let r = 0; r < 2; r++) { const t = process.cpuUsage(); for (let i = 0; i < N; i++) f(); const c = process.cpuUsage(t); console.log(name, ((c.user + c.system) / N).toFixed(2), "µs") } }
console.log(Exit.isSuccess(dec(conn, { errors: "all" })), Exit.isSuccess(enc(conn as any, { errors: "all" })))
bench("decode all", () => dec(conn, { errors: "all" }))
bench("decode first", () => dec(conn))
bench("encode all", () => enc(conn as any, { errors: "all" }))
bench("encode first", () => enc(conn as any))
