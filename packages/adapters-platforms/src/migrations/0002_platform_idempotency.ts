// Platform migration 0002: the sandbox platforms' side of the idempotency token (Platforms port, `ToolCall
// .idempotencyToken`): the first answer given per workspace, family and token, written in the same transaction as
// the change, so a repeated token answers it again and changes nothing, as a real platform's request id does.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // `token` is the pipeline's token (a hash or a write request's id, never a secret); `body` is the answer's JSON.
  yield* sql`CREATE TABLE platform_idempotency (
    workspace_id text NOT NULL,
    family text NOT NULL,
    token text NOT NULL,
    provider_status integer,
    body jsonb,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, family, token)
  )`
})
