// Growth seeding (scenario f): N more stored connections, each with its refresh-token hash and one access token,
// written directly into adgate's schema (migration 0001) as copies of a connection the set-up made through the pages.
// The copies are active and live (unexpired), with random hashes nobody holds: the hot path must stay flat past them.
// They belong to copies of the bench's client, one per `perClient` connections (each with a token noted, so that
// housekeeping does not purge them): with every copy on one client the planner's statistics say "every connection
// has this client_id", and housekeeping's client purges (NOT EXISTS over connections_by_client) were planned as a
// scan of all the connections instead of one index probe per candidate client (0.5–0.65 s at 10^6; bench/README.md).
import { sql as runSql } from "./processes.mjs"

/**
 * Leaves the seeded tables as a server that grew to this size would have them: vacuumed (hint bits set, visibility
 * map and free-space map built) and analysed. Rows that accumulated over months have been through autovacuum; rows
 * bulk-inserted a moment ago have not, and autovacuum may be off on the bench's PostgreSQL (it is on the shared
 * machine these figures come from), so without this the first reads and writes after seeding pay for it.
 * One statement (VACUUM cannot run in the implicit transaction of a multi-statement query).
 */
const settle = (database, tables) => runSql(database, `VACUUM (ANALYZE) ${tables.join(", ")}`)

/**
 * How many rows of `table` earlier seeding added (their ids start with `bench_seed_`) and, while that is short of
 * `total`, the id of the set-up's oldest own row: the template the next ones copy (a failure when the set-up made none).
 */
const seedingState = async (database, table, total, what) => {
  const [{ seeded }] = await runSql(database, `SELECT count(*)::int AS seeded FROM ${table} WHERE id LIKE 'bench_seed_%'`)
  if (seeded >= total) return { seeded }
  const [{ id: template } = {}] = await runSql(database, `SELECT id FROM ${table} WHERE id NOT LIKE 'bench_seed_%' ORDER BY created_at LIMIT 1`)
  if (template === undefined) throw new Error(`no ${what} to copy: run the set-up first`)
  return { seeded, template }
}

/** Adds connections (and as many refresh-token rows and access tokens) until there are `total` seeded ones. */
export const seedConnections = async (database, total) => {
  const { seeded, template } = await seedingState(database, "connections", total, "connection")
  if (seeded >= total) return seeded
  const batch = 50_000
  const perClient = 100
  for (let from = seeded + 1; from <= total; from += batch) {
    const to = Math.min(total, from + batch - 1)
    await runSql(database, `
      INSERT INTO clients (client_id, version, kind, name, redirect_uris, auth_method, secret_hash, workspace_id, recognised,
        created_at, last_token_at, removed_at, document_host, cache_until)
      SELECT 'bench_seed_client_' || k, 1, t.kind, t.name, t.redirect_uris, t.auth_method, t.secret_hash, t.workspace_id,
        t.recognised, t.created_at, coalesce(t.last_token_at, t.created_at), NULL, t.document_host, t.cache_until
      FROM generate_series(($2::int - 1) / $4::int, ($3::int - 1) / $4::int) AS k,
        clients t JOIN connections tc ON tc.client_id = t.client_id WHERE tc.id = $1
      ON CONFLICT (client_id) DO NOTHING`, [template, from, to, perClient])
    await runSql(database, `
      WITH g AS (SELECT n, encode(sha256(('bench-seed-refresh-' || n)::bytea), 'base64') AS rt,
                            encode(sha256(('bench-seed-access-' || n)::bytea), 'base64') AS at,
                            'bench_seed_client_' || ((n - 1) / $4::int) AS client_id
                 FROM generate_series($2::int, $3::int) AS n),
      c AS (
        INSERT INTO connections (id, version, client_id, workspace_id, approver_id, scopes, surface, platforms, write_mode,
          status, ended_reason, created_at, ended_at, expires_at, role_confirmed_at, refresh, spent, withdrawn, last_used_at)
        SELECT 'bench_seed_' || g.n, 1, g.client_id, t.workspace_id, t.approver_id, t.scopes, t.surface, t.platforms,
          t.write_mode, 'active', NULL, t.created_at, NULL, t.expires_at, t.role_confirmed_at,
          jsonb_set(t.refresh, '{hash}', to_jsonb(g.rt)), NULL, '[]'::jsonb, t.last_used_at
        FROM g, connections t WHERE t.id = $1
        RETURNING id
      ),
      r AS (
        INSERT INTO connection_refresh_tokens (hash, connection_id)
        SELECT g.rt, 'bench_seed_' || g.n FROM g JOIN c ON c.id = 'bench_seed_' || g.n
      )
      INSERT INTO access_tokens (hash, connection_id, generation, client_id, workspace_id, scopes, surface, issued_at, expires_at, revoked_at)
      SELECT g.at, 'bench_seed_' || g.n, 1, g.client_id, t.workspace_id, t.scopes, t.surface, t.created_at,
        (extract(epoch FROM now()) * 1000)::bigint + 3600000, NULL
      FROM g, connections t WHERE t.id = $1`, [template, from, to, perClient])
  }
  await settle(database, ["clients", "connections", "connection_refresh_tokens", "access_tokens"])
  return total
}

/**
 * Growth seeding for the tool call (scenario f-d): adds API keys (copies of the bench's own key with random hashes
 * nobody holds, live) and as many tool-usage rows of the bench workspace (calls of the past days) until there are
 * `total` of each: the key look-up by hash and the usage insert must stay flat past them.
 */
export const seedApiKeysAndUsage = async (database, total) => {
  const { seeded, template } = await seedingState(database, "api_keys", total, "API key")
  if (seeded >= total) return seeded
  const batch = 50_000
  for (let from = seeded + 1; from <= total; from += batch) {
    const to = Math.min(total, from + batch - 1)
    await runSql(database, `
      WITH k AS (
        INSERT INTO api_keys (id, hash, version, workspace_id, name, created_by, scopes, tool_writes, created_at, last_used_at, revoked_at)
        SELECT 'bench_seed_' || n, encode(sha256(('bench-seed-key-' || n)::bytea), 'base64'), t.version, t.workspace_id,
          'seed ' || n, t.created_by, t.scopes, t.tool_writes, t.created_at, NULL, NULL
        FROM generate_series($2::int, $3::int) AS n, api_keys t WHERE t.id = $1
        RETURNING id, workspace_id
      )
      INSERT INTO tool_usage (id, workspace_id, connection_id, api_key_id, tool, kind, outcome, credits, at)
      SELECT 'bench_seed_usage_' || substr(k.id, 12), k.workspace_id, NULL, k.id, 'gads__list_campaigns', 'read', 'succeeded', 1,
        (extract(epoch FROM now()) * 1000)::bigint - (substr(k.id, 12)::int * 1000)
      FROM k`, [template, from, to])
  }
  await settle(database, ["api_keys", "tool_usage"])
  return total
}
