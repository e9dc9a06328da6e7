// The API & MCP page's "last used" of each connection and API key (docs/service.md, Pages): the latest tool call of
// each is the last entry of its partial index, found without a scan of the workspace's calls. IF NOT EXISTS: the
// upgrade test replays the migrations after an older one.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS tool_usage_by_connection ON tool_usage (connection_id, at) WHERE connection_id IS NOT NULL`
  yield* sql`CREATE INDEX IF NOT EXISTS tool_usage_by_api_key ON tool_usage (api_key_id, at) WHERE api_key_id IS NOT NULL`
})
