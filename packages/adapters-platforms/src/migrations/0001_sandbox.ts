// Platform migration 0001: the workspace's platform connections (credential sealed by the CredentialCipher) and the
// sandbox platforms' own state: what each platform holds for a workspace (its side of the token, accounts, objects
// with budgets and statuses, daily metrics). Times are epoch milliseconds; days are ISO dates (`YYYY-MM-DD`, UTC).
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // One connection per workspace and family; `credential` is `v1.<iv>.<ciphertext>.<tag>`, never the clear value.
  yield* sql`CREATE TABLE platform_connections (
    workspace_id text NOT NULL,
    family text NOT NULL,
    credential text NOT NULL,
    connected_at bigint NOT NULL,
    connected_by text NOT NULL,
    PRIMARY KEY (workspace_id, family)
  )`

  // The platform's side: the SHA-256 of the access token it issued, as a real platform checks a bearer.
  yield* sql`CREATE TABLE sandbox_tokens (
    workspace_id text NOT NULL,
    family text NOT NULL,
    token_hash text NOT NULL,
    PRIMARY KEY (workspace_id, family)
  )`

  yield* sql`CREATE TABLE sandbox_accounts (
    workspace_id text NOT NULL,
    family text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    currency text NOT NULL,
    time_zone text NOT NULL,
    PRIMARY KEY (workspace_id, family, id)
  )`

  // Campaigns, ad groups, ad sets, products, site tags, conversion events and analytics channels alike; `profile`
  // holds the seeded traits the daily metrics are generated from, `data` the platform-specific fields.
  yield* sql`CREATE TABLE sandbox_objects (
    workspace_id text NOT NULL,
    family text NOT NULL,
    id text NOT NULL,
    account_id text NOT NULL,
    type text NOT NULL,
    parent_id text,
    name text NOT NULL,
    status text NOT NULL,
    daily_budget double precision,
    profile jsonb NOT NULL,
    data jsonb NOT NULL,
    position integer NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, family, id)
  )`
  yield* sql`CREATE INDEX sandbox_objects_by_account ON sandbox_objects (workspace_id, family, account_id, type, position)`

  yield* sql`CREATE TABLE sandbox_daily_metrics (
    workspace_id text NOT NULL,
    family text NOT NULL,
    object_id text NOT NULL,
    day text NOT NULL,
    impressions integer NOT NULL DEFAULT 0,
    clicks integer NOT NULL DEFAULT 0,
    cost double precision NOT NULL DEFAULT 0,
    conversions double precision NOT NULL DEFAULT 0,
    conversion_value double precision NOT NULL DEFAULT 0,
    sessions integer NOT NULL DEFAULT 0,
    users integer NOT NULL DEFAULT 0,
    orders integer NOT NULL DEFAULT 0,
    units integer NOT NULL DEFAULT 0,
    revenue double precision NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, family, object_id, day)
  )`
  yield* sql`CREATE INDEX sandbox_daily_metrics_by_day ON sandbox_daily_metrics (workspace_id, family, day)`

  // The last day whose metrics were generated, per workspace and family: days after it are filled on the next read.
  yield* sql`CREATE TABLE sandbox_fills (
    workspace_id text NOT NULL,
    family text NOT NULL,
    filled_through text NOT NULL,
    PRIMARY KEY (workspace_id, family)
  )`
})
