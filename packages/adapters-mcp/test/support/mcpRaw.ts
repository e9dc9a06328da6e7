// Raw JSON-RPC at /api/mcp, for the tests that send what the SDK client would not (odd bodies, headers, paths), and an
// outage of one of our own tables: shared by the protocol-edge tests and the attack catalogue.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { McpTestServer } from "./mcpTestServer.ts"

/** The headers of a 2025-11-25 request, with the credential as a Bearer (none when null). */
export const mcpHeaders = (credential: string | null) => ({
  ...(credential === null ? {} : { authorization: `Bearer ${credential}` }),
  "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"
})

/** A raw POST to `path` (default /api/mcp) with `body` (JSON-encoded unless already text). */
export const postMcp = (
  server: McpTestServer,
  credential: string | null,
  body: unknown,
  options: { readonly path?: string; readonly headers?: Record<string, string> } = {}
) =>
  server.fetch(options.path ?? "/api/mcp", {
    method: "POST", headers: { ...mcpHeaders(credential), ...options.headers }, body: typeof body === "string" ? body : JSON.stringify(body)
  })

/** Runs `body` with `table` renamed away, so that every statement on it fails (our database down for it); the table is back afterwards. */
export const withTableAway = async <A>(server: McpTestServer, table: string, body: () => Promise<A>): Promise<A> => {
  const rename = (from: string, to: string) => server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE ${sql(from)} RENAME TO ${sql(to)}`))
  await rename(table, `${table}_away`)
  try {
    return await body()
  } finally {
    await rename(`${table}_away`, table)
  }
}
