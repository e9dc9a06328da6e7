// Migration 0001: the OAuth core's tables (clients, consent pages, codes, connections with their refresh-token
// index, access tokens, API keys), the directory, audit log, mail outbox, people, sessions and rate-limit windows.
// Times are epoch milliseconds (bigint). Secrets appear only as SHA-256 hashes; there is no plaintext column.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE clients (
    client_id text PRIMARY KEY,
    version integer NOT NULL,
    kind text NOT NULL,
    name text,
    redirect_uris jsonb NOT NULL,
    auth_method text NOT NULL,
    secret_hash text,
    workspace_id text,
    recognised boolean NOT NULL,
    created_at bigint NOT NULL,
    last_token_at bigint,
    removed_at bigint,
    document_host text,
    cache_until bigint
  )`
  yield* sql`CREATE INDEX clients_by_workspace ON clients (workspace_id)`
  // The daily registration pause and forgetting unused registrations both scan by kind and creation time.
  yield* sql`CREATE INDEX clients_by_kind_created ON clients (kind, created_at)`

  yield* sql`CREATE TABLE consent_pages (
    id text PRIMARY KEY,
    version integer NOT NULL,
    request jsonb NOT NULL,
    user_id text NOT NULL,
    workspace_id text NOT NULL,
    csrf_hash text NOT NULL,
    opened_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    status text NOT NULL
  )`
  yield* sql`CREATE INDEX consent_pages_by_expiry ON consent_pages (expires_at)`

  yield* sql`CREATE TABLE authorization_codes (
    hash text PRIMARY KEY,
    version integer NOT NULL,
    client_id text NOT NULL,
    redirect_uri text NOT NULL,
    redirect_uri_sent boolean NOT NULL,
    code_challenge text NOT NULL,
    user_id text NOT NULL,
    workspace_id text NOT NULL,
    scopes jsonb NOT NULL,
    surface text NOT NULL,
    platforms jsonb NOT NULL,
    write_mode text NOT NULL,
    issued_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    status text NOT NULL,
    failed_attempts integer NOT NULL,
    connection_id text
  )`
  yield* sql`CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at)`

  yield* sql`CREATE TABLE connections (
    id text PRIMARY KEY,
    version integer NOT NULL,
    client_id text NOT NULL,
    workspace_id text NOT NULL,
    approver_id text NOT NULL,
    scopes jsonb NOT NULL,
    surface text NOT NULL,
    platforms jsonb NOT NULL,
    write_mode text NOT NULL,
    status text NOT NULL,
    ended_reason text,
    created_at bigint NOT NULL,
    ended_at bigint,
    expires_at bigint NOT NULL,
    role_confirmed_at bigint NOT NULL,
    refresh jsonb NOT NULL,
    spent jsonb,
    withdrawn jsonb NOT NULL,
    last_used_at bigint NOT NULL
  )`
  yield* sql`CREATE INDEX connections_by_workspace ON connections (workspace_id)`
  yield* sql`CREATE INDEX connections_by_client ON connections (client_id)`
  // Every refresh token hash ever issued → its connection: reuse of a spent or withdrawn one is recognised.
  yield* sql`CREATE TABLE connection_refresh_tokens (
    hash text PRIMARY KEY,
    connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE
  )`
  yield* sql`CREATE INDEX connection_refresh_tokens_by_connection ON connection_refresh_tokens (connection_id)`

  yield* sql`CREATE TABLE access_tokens (
    hash text PRIMARY KEY,
    connection_id text NOT NULL,
    generation integer NOT NULL,
    client_id text NOT NULL,
    workspace_id text NOT NULL,
    scopes jsonb NOT NULL,
    surface text NOT NULL,
    issued_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    revoked_at bigint
  )`
  yield* sql`CREATE INDEX access_tokens_by_expiry ON access_tokens (expires_at)`
  yield* sql`CREATE INDEX access_tokens_by_connection ON access_tokens (connection_id)`

  yield* sql`CREATE TABLE api_keys (
    id text PRIMARY KEY,
    hash text NOT NULL UNIQUE,
    version integer NOT NULL,
    workspace_id text NOT NULL,
    name text NOT NULL,
    created_by text NOT NULL,
    scopes jsonb NOT NULL,
    tool_writes text NOT NULL,
    created_at bigint NOT NULL,
    last_used_at bigint,
    revoked_at bigint
  )`
  yield* sql`CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id)`

  yield* sql`CREATE TABLE workspaces (
    id text PRIMARY KEY,
    name text NOT NULL,
    plan text NOT NULL,
    credits double precision NOT NULL,
    created_at bigint NOT NULL
  )`
  yield* sql`CREATE TABLE users (
    id text PRIMARY KEY,
    email text NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL
  )`
  // Sign-in finds people by e-mail, case-insensitively; two people cannot share one address.
  yield* sql`CREATE UNIQUE INDEX users_by_email ON users (lower(email))`
  yield* sql`CREATE TABLE memberships (
    workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role text NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
  )`
  yield* sql`CREATE INDEX memberships_by_user ON memberships (user_id)`

  // `position` keeps insertion order, which is the order the log and the outbox are read in.
  yield* sql`CREATE TABLE audit_entries (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    workspace_id text NOT NULL,
    at bigint NOT NULL,
    actor_id text,
    action text NOT NULL,
    client_id text,
    connection_id text,
    detail jsonb NOT NULL
  )`
  yield* sql`CREATE INDEX audit_entries_by_workspace ON audit_entries (workspace_id, position)`
  yield* sql`CREATE TABLE mail_outbox (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    recipient text NOT NULL,
    subject text NOT NULL,
    text text NOT NULL,
    created_at bigint NOT NULL,
    sent_at bigint
  )`
  yield* sql`CREATE INDEX mail_outbox_pending ON mail_outbox (position) WHERE sent_at IS NULL`

  yield* sql`CREATE TABLE password_hashes (
    user_id text PRIMARY KEY,
    password_hash text NOT NULL
  )`
  yield* sql`CREATE TABLE sessions (
    hash text PRIMARY KEY,
    user_id text NOT NULL,
    workspace_id text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    revoked_at bigint
  )`
  yield* sql`CREATE INDEX sessions_by_expiry ON sessions (expires_at)`

  yield* sql`CREATE TABLE rate_limit_windows (
    key text NOT NULL,
    window_start bigint NOT NULL,
    window_end bigint NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (key, window_start)
  )`
  yield* sql`CREATE INDEX rate_limit_windows_by_end ON rate_limit_windows (window_end)`
})
