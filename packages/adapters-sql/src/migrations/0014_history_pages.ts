// The Write approvals page's history and the Audit log page read one page at a time, newest first, filtered: these
// indexes serve each filter without reading a workspace's whole history. Write requests no longer pending, by last
// move (all, or of one status); audit entries of one kind, of one connection, of one client, of one API key (named
// in the entry's detail).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX write_requests_decided ON write_requests (workspace_id, updated_at DESC, id COLLATE "C" DESC)
    WHERE status <> 'pending_approval'`
  yield* sql`CREATE INDEX write_requests_by_status ON write_requests (workspace_id, status, updated_at DESC, id COLLATE "C" DESC)`
  yield* sql`CREATE INDEX audit_entries_by_action ON audit_entries (workspace_id, action, position)`
  yield* sql`CREATE INDEX audit_entries_by_connection ON audit_entries (workspace_id, connection_id, position)
    WHERE connection_id IS NOT NULL`
  yield* sql`CREATE INDEX audit_entries_by_client ON audit_entries (workspace_id, client_id, position)
    WHERE client_id IS NOT NULL`
  yield* sql`CREATE INDEX audit_entries_by_api_key ON audit_entries (workspace_id, (detail->>'apiKeyId'), position)
    WHERE detail->>'apiKeyId' IS NOT NULL`
})
