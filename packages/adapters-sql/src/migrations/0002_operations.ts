// Migration 0002: the operations tables of the tool pipeline: write requests (the approval queue), idempotency keys,
// the credits ledger's entries (the balance stays workspaces.credits, now never below zero), tasks and tool usage.
// Times are epoch milliseconds (bigint); JSON payloads are jsonb.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE write_requests (
    id text PRIMARY KEY,
    version integer NOT NULL,
    workspace_id text NOT NULL,
    connection_id text,
    api_key_id text,
    requested_by text NOT NULL,
    tool text NOT NULL,
    arguments jsonb NOT NULL,
    arguments_hash text NOT NULL,
    reason text NOT NULL,
    status text NOT NULL,
    provider_status integer,
    result jsonb,
    decided_by text,
    decided_at bigint,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`
  // The Write approvals queue of a workspace, and housekeeping's scan for due requests, read only pending rows.
  yield* sql`CREATE INDEX write_requests_pending ON write_requests (workspace_id, created_at) WHERE status = 'pending_approval'`
  yield* sql`CREATE INDEX write_requests_due ON write_requests (expires_at) WHERE status = 'pending_approval'`

  // One row per (principal scope, key): the primary key is what makes a claim exactly-once.
  yield* sql`CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL,
    response jsonb,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (scope, key)
  )`
  yield* sql`CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at)`

  // The balance is workspaces.credits; a charge takes from it only where it covers the amount, and this check makes
  // a negative balance impossible whatever writes it (checklist 178).
  yield* sql`ALTER TABLE workspaces ADD CONSTRAINT workspaces_credits_not_negative CHECK (credits >= 0)`
  yield* sql`CREATE TABLE credit_entries (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    kind text NOT NULL,
    amount double precision NOT NULL,
    balance_after double precision NOT NULL,
    reason text NOT NULL,
    reference text,
    at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX credit_entries_by_workspace ON credit_entries (workspace_id, position)`

  yield* sql`CREATE TABLE tasks (
    id text PRIMARY KEY,
    version integer NOT NULL,
    workspace_id text NOT NULL,
    created_by text NOT NULL,
    connection_id text,
    api_key_id text,
    goal text NOT NULL,
    status text NOT NULL,
    plan jsonb,
    report jsonb,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX tasks_by_workspace ON tasks (workspace_id, created_at DESC, id COLLATE "C" DESC)`

  yield* sql`CREATE TABLE tool_usage (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    workspace_id text NOT NULL,
    connection_id text,
    api_key_id text,
    tool text NOT NULL,
    kind text NOT NULL,
    outcome text NOT NULL,
    credits double precision NOT NULL,
    at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX tool_usage_by_workspace ON tool_usage (workspace_id, at DESC, position DESC)`
})
