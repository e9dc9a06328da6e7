// The API & MCP page's reads of one credential's history (docs/service.md, Pages): when a connection or an API key
// last made a tool call (the latest row of each, found from these partial indexes instead of a scan of the
// workspace's calls) and a Connected apps row's audit trail (its entries, by the same expression as
// core audit/credentialOfEntry.ts: the entry's connection, else the API key or the credential its detail names).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX tool_usage_by_connection ON tool_usage (connection_id, at) WHERE connection_id IS NOT NULL`
  yield* sql`CREATE INDEX tool_usage_by_api_key ON tool_usage (api_key_id, at) WHERE api_key_id IS NOT NULL`
  yield* sql`CREATE INDEX audit_entries_by_credential ON audit_entries (workspace_id,
    (coalesce(connection_id, nullif(detail->>'apiKeyId', ''), nullif(detail->>'credential', ''))), position)`
})
