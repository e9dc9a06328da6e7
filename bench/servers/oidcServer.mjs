// The reference server: oidc-provider 9 configured as close to adgate as it allows (authorization code + PKCE S256,
// public client, opaque access tokens bound to a resource (RFC 8707), a refresh token on every grant rotated on
// every use, 1-hour access tokens, 10-minute codes). Store: its in-memory adapter (over a larger store) or
// PostgresAdapter.mjs (the community shape) or PostgresAdapterTuned.mjs (named statements, partial indexes).
// Usage: node oidcServer.mjs <port> memory|pg|pg-tuned [DATABASE_URL]
import { createServer } from "node:http"
import Provider from "oidc-provider"
// Its own in-memory adapter, but over a store large enough for the run: the default store is an LRU of 1000 entries,
// which under 64 chains or 1500 codes evicts live grants and codes (invalid_grant), measuring eviction, not the server.
import MemoryAdapter from "oidc-provider/lib/adapters/memory_adapter.js"
import LRU from "oidc-provider/lib/helpers/lru.js"
import { postgresAdapter, schema } from "./PostgresAdapter.mjs"
import { postgresAdapterTuned, schema as tunedSchema } from "./PostgresAdapterTuned.mjs"

const [port, store, databaseUrl] = process.argv.slice(2)
const issuer = `http://127.0.0.1:${port}`
const resource = `${issuer}/api/mcp`
const resourceScopes = "tools:read tools:write"

let adapter
if (store === "memory") {
  const storage = new LRU({ maxSize: 10_000_000 })
  adapter = (model) => new MemoryAdapter(model, storage)
} else if (store === "pg") {
  const { Adapter, pool } = postgresAdapter(databaseUrl)
  await pool.query(schema)
  adapter = Adapter
} else if (store === "pg-tuned") {
  const { Adapter, pool } = postgresAdapterTuned(databaseUrl)
  await pool.query(tunedSchema)
  adapter = Adapter
}

// OIDC_REVOCATION=1 (the conformance kit's second run, docs/conformance.md): token revocation (RFC 7009) and a second
// public client, so that revocation and exchanges with the wrong client can be sent. The bench never sets it.
const withRevocation = process.env.OIDC_REVOCATION === "1"
const publicClient = (clientId) => ({
  client_id: clientId,
  token_endpoint_auth_method: "none",
  redirect_uris: ["http://127.0.0.1:9/callback"],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"]
})

const provider = new Provider(issuer, {
  ...(adapter ? { adapter } : {}),
  clients: withRevocation ? [publicClient("bench"), publicClient("bench-other")] : [publicClient("bench")],
  // S256 only (oidc-provider 9 supports nothing else); required for public clients by default.
  pkce: { required: () => true },
  scopes: [],
  features: {
    devInteractions: { enabled: true },
    revocation: { enabled: withRevocation },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new Provider.errors.InvalidTarget()
        return { scope: resourceScopes, audience: resource, accessTokenFormat: "opaque", accessTokenTTL: 3600 }
      }
    }
  },
  // adgate gives every connection a refresh token and rotates it on every use.
  issueRefreshToken: () => true,
  rotateRefreshToken: () => true,
  ttl: { AccessToken: 3600, AuthorizationCode: 600, RefreshToken: 30 * 24 * 3600, Grant: 365 * 24 * 3600, Session: 12 * 3600, Interaction: 600 },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  cookies: { keys: ["bench-cookie-key-not-secret"] }
})
provider.on("server_error", (_ctx, error) => console.error("server_error", error))

createServer(provider.callback()).listen(Number(port), "127.0.0.1", () => console.log(`oidc-provider (${store}) on ${issuer}`))
process.on("SIGTERM", () => process.exit(0))
