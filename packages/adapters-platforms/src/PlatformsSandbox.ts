// The Platforms port over the four sandbox platforms (spec §What the service does 7; docs/platforms.md): catalog,
// connected accounts, previews and calls, with each workspace's platform credential sealed at rest by the
// CredentialCipher and opened only here, for the call. Also the SandboxConnections service that connects a
// workspace to a family (the demo seeding and tests use it).
import {
  type Account, kindOfCall, type PlatformAnswer, Platforms, PlatformUnavailable, type ProposedChange, StoreUnavailable, type ToolCall
} from "@adgate/core"
import { CredentialCipher } from "@adgate/adapters-sql"
import { Clock, Context, Effect, Layer, type Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Migrator, SqlError } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { runPlatformMigrations } from "./runPlatformMigrations.ts"
import { googleAds } from "./sandbox/googleAds.ts"
import { googleAnalytics } from "./sandbox/googleAnalytics.ts"
import { metaAds } from "./sandbox/metaAds.ts"
import type { SandboxCall, SandboxPlatform } from "./sandbox/SandboxPlatform.ts"
import { sandboxStore } from "./sandbox/SandboxStore.ts"
import { shopifyStore } from "./sandbox/shopifyStore.ts"

export const sandboxPlatforms: ReadonlyArray<SandboxPlatform> = [googleAds, metaAds, googleAnalytics, shopifyStore]

export interface SandboxConnectionsShape {
  /**
   * Connects `family` for the workspace as `userId`: the sandbox issues an access token (kept by the platform as a
   * SHA-256), the workspace's copy is sealed and stored, and the platform's accounts and history are seeded.
   * Connecting again replaces the credential. `credential` overrides the stored copy (tests: a wrong token).
   */
  readonly connect: (workspaceId: string, family: string, userId: string, credential?: string) => Effect.Effect<void, PlatformUnavailable>
  readonly disconnect: (workspaceId: string, family: string) => Effect.Effect<void, PlatformUnavailable>
  /** The families the workspace has connected. */
  readonly connected: (workspaceId: string) => Effect.Effect<ReadonlyArray<string>, PlatformUnavailable>
}
export class SandboxConnections extends Context.Service<SandboxConnections, SandboxConnectionsShape>()(
  "adapters-platforms/SandboxConnections"
) {}

/** Connects all four sandbox platforms with their seeded data (the demo workspace of `npm start`). */
export const connectSandboxPlatforms = Effect.fnUntraced(function* (workspaceId: string, userId: string) {
  const connections = yield* SandboxConnections
  for (const platform of sandboxPlatforms) yield* connections.connect(workspaceId, platform.family.id, userId)
})

const sha256 = (value: string): string => createHash("sha256").update(value, "utf8").digest("hex")

// A failing database is an answer (503, safe to retry), never a defect; the message names the step, not a value.
const unavailable = (platform: string, step: string) => <A, E, R>(self: Effect.Effect<A, E | SqlError.SqlError, R>) =>
  Effect.mapError(self, (error) => new PlatformUnavailable({
    platform,
    message: `${platform} sandbox: ${step} failed${typeof error === "object" && error !== null && "_tag" in error ? ` (${String(error._tag)})` : ""}`
  }))

// The connected accounts are the service's own records (platform_connections), read from its database: a failing read
// is an outage of ours (503 temporarily_unavailable), not a platform that did not answer.
const ourOutage = (operation: string) => <A, E, R>(self: Effect.Effect<A, E | SqlError.SqlError, R>) =>
  Effect.mapError(self, (error) => new StoreUnavailable({
    operation,
    message: `${operation} failed${typeof error === "object" && error !== null && "_tag" in error ? ` (${String(error._tag)})` : ""}`
  }))

// PGlite answers jsonb parsed, node-postgres too; a driver that answers text is parsed here.
const parseJson = (value: unknown): Schema.Json => (typeof value === "string" ? JSON.parse(value) as Schema.Json : value as Schema.Json)

const shortName = (call: ToolCall): string => call.tool.name.slice(call.tool.family.length + 2)

/**
 * Whether a raw call is a person's decision (spec §What the service does 6): that of the tool it means, so a raw
 * delete, activation or theme snippet waits like its structured tool; a call the platform cannot read as one of its
 * tools is a person's decision (fail closed).
 */
const rawPersonDecision = (platform: SandboxPlatform, call: SandboxCall) =>
  Effect.map(platform.meaning(call), (meant) => {
    if ("providerStatus" in meant) return true
    return platform.tools.find((t) => t.name === `${platform.family.id}__${meant.tool}`)?.personDecision ?? true
  })

/** Every string and number in a JSON value (keys too), as text. */
const textsOf = (value: Schema.Json | undefined, out: Array<string> = []): Array<string> => {
  if (typeof value === "string") out.push(value)
  else if (typeof value === "number") out.push(String(value))
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out)
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push(k)
      textsOf(v, out)
    }
  }
  return out
}

/**
 * The objects a raw call names, whether or not the platform can read it (guardrails check protected names on each):
 * every object of the workspace's accounts of the platform whose id is a word of the path or of any body value
 * (`customers/1/campaigns/20481001` names 20481001), or whose name is a body value. Conservative: a number that
 * happens to equal an id names that object too.
 */
const namedByRaw = (call: SandboxCall) =>
  Effect.map(call.store.allObjects, (objects) => {
    const texts = [typeof call.args["path"] === "string" ? call.args["path"] : "", ...textsOf(call.args["body"])]
    const words = new Set(texts.flatMap((t) => t.split(/[^A-Za-z0-9_]+/)).filter((w) => w.length > 0))
    const values = new Set(texts.map((t) => t.trim().normalize("NFC").toLowerCase()))
    return objects
      .filter((o) => words.has(o.id) || values.has(o.name.trim().normalize("NFC").toLowerCase()))
      .map((o) => ({ type: o.type, id: o.id, name: o.name }))
  })

export const PlatformsSandbox: Layer.Layer<
  Platforms | SandboxConnections,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient | CredentialCipher
> = Layer.effectContext(
  Effect.gen(function* () {
    yield* runPlatformMigrations
    // Result columns come back camelCase (the client's name transforms, adapters-sql sqlNames.ts).
    const sql = yield* SqlClient.SqlClient
    const cipher = yield* CredentialCipher
    const byFamily = new Map(sandboxPlatforms.map((p) => [p.family.id, p]))
    const provide = <A, E>(self: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.provideService(self, SqlClient.SqlClient, sql)

    const connectedFamilies = (workspaceId: string) =>
      sql<{ family: string }>`SELECT family FROM platform_connections WHERE workspace_id = ${workspaceId} ORDER BY family`.pipe(
        Effect.map((rows) => rows.map((r) => r.family)))

    const platformOf = (call: ToolCall): SandboxPlatform | undefined => byFamily.get(call.tool.family)
    const unknownFamily = (call: ToolCall) =>
      Effect.fail(new PlatformUnavailable({ platform: call.tool.family, message: "unknown platform family" }))
    /** The platform's view of a call: its short tool name and arguments over the workspace's store. */
    const sandboxCallOf = (call: ToolCall, platform: SandboxPlatform): SandboxCall => ({
      workspaceId: call.workspaceId, tool: shortName(call), args: call.arguments, store: sandboxStore(call.workspaceId, platform.family.id)
    })

    /**
     * The platform's own check of the bearer it receives (the stored credential, opened here only) and, in the same
     * statement, the last day its metrics were filled through (SandboxStore.fill): null when the call is refused.
     */
    const authorized = Effect.fnUntraced(function* (workspaceId: string, family: string) {
      const rows = yield* sql<{ credential: string; tokenHash: string | null; filledThrough: string | null }>`
        SELECT c.credential, t.token_hash, f.filled_through FROM platform_connections c
        LEFT JOIN sandbox_tokens t ON t.workspace_id = c.workspace_id AND t.family = c.family
        LEFT JOIN sandbox_fills f ON f.workspace_id = c.workspace_id AND f.family = c.family
        WHERE c.workspace_id = ${workspaceId} AND c.family = ${family}`
      const row = rows[0]
      if (row === undefined || row.tokenHash === null) return null
      const opened = yield* Effect.result(cipher.open(row.credential))
      if (opened._tag === "Failure" || row.tokenHash !== sha256(opened.success)) return null
      return { filledThrough: row.filledThrough }
    })

    /** What `authorized` answers for a call it lets through: the last day the metrics were filled through. */
    type Fills = { readonly filledThrough: string | null }
    // Made once, with the layer: docs/architecture.md, "Code on the request path".
    const connectWrites = Effect.fnUntraced(function* (
      platform: SandboxPlatform, workspaceId: string, userId: string, token: string, sealed: string, now: number
    ) {
      const family = platform.family.id
      const store = sandboxStore(workspaceId, family)
      yield* sql`INSERT INTO sandbox_tokens (workspace_id, family, token_hash) VALUES (${workspaceId}, ${family}, ${sha256(token)})
              ON CONFLICT (workspace_id, family) DO UPDATE SET token_hash = EXCLUDED.token_hash`
      yield* sql`INSERT INTO platform_connections (workspace_id, family, credential, connected_at, connected_by)
              VALUES (${workspaceId}, ${family}, ${sealed}, ${now}, ${userId})
              ON CONFLICT (workspace_id, family) DO UPDATE SET credential = EXCLUDED.credential,
              connected_at = EXCLUDED.connected_at, connected_by = EXCLUDED.connected_by`
      yield* provide(platform.seed(store, workspaceId))
      yield* provide(store.fill(platform.generate(workspaceId)))
    })
    const connectWith = Effect.fnUntraced(function* (
      platform: SandboxPlatform, workspaceId: string, family: string, userId: string, credential: string | undefined
    ) {
      const token = `sbx_${family}_${randomBytes(24).toString("base64url")}`
      const sealed = yield* cipher.seal(credential ?? token)
      const now = yield* Clock.currentTimeMillis
      yield* sql.withTransaction(connectWrites(platform, workspaceId, userId, token, sealed, now))
    })

    /** One statement: the connected families' accounts (of `only` when given), in family then id order. */
    const accountsOf = Effect.fnUntraced(function* (workspaceId: string, only: string | undefined) {
      type Row = { family: string; id: string; name: string; status: string }
      const rows = yield* (only === undefined
        ? sql<Row>`SELECT a.family, a.id, a.name, a.status
              FROM platform_connections c JOIN sandbox_accounts a ON a.workspace_id = c.workspace_id AND a.family = c.family
              WHERE c.workspace_id = ${workspaceId} ORDER BY a.family, a.id`
        : sql<Row>`SELECT a.family, a.id, a.name, a.status
              FROM platform_connections c JOIN sandbox_accounts a ON a.workspace_id = c.workspace_id AND a.family = c.family
              WHERE c.workspace_id = ${workspaceId} AND c.family = ${only} ORDER BY a.id`)
      const out: Array<Account> = []
      for (const r of rows) if (byFamily.has(r.family)) out.push({ platform: r.family, id: r.id, name: r.name, status: r.status })
      return out
    })
    const previewWith = Effect.fnUntraced(function* (call: ToolCall, platform: SandboxPlatform, sandboxCall: SandboxCall) {
      const change = yield* platform.preview(sandboxCall)
      if (!call.tool.raw) return { ...change, personDecision: call.tool.personDecision }
      return { ...change, personDecision: yield* rawPersonDecision(platform, sandboxCall), named: yield* namedByRaw(sandboxCall) }
    })
    const readWith = Effect.fnUntraced(function* (call: ToolCall, platform: SandboxPlatform, sandboxCall: SandboxCall, fills: Fills) {
      yield* sandboxCall.store.fill(platform.generate(call.workspaceId), fills)
      return yield* platform.handle(sandboxCall)
    })
    const writeWith = Effect.fnUntraced(function* (call: ToolCall, platform: SandboxPlatform, sandboxCall: SandboxCall, fills: Fills) {
      const token = call.idempotencyToken
      if (token !== undefined) {
        // Insert first: a concurrent call with the same token waits on this row until we commit, then finds it.
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* sql<{ token: string }>`INSERT INTO platform_idempotency (workspace_id, family, token, created_at)
                VALUES (${call.workspaceId}, ${platform.family.id}, ${token}, ${now})
                ON CONFLICT (workspace_id, family, token) DO NOTHING RETURNING token`
        if (claimed.length === 0) {
          // The conflicting row is committed with its answer (rows are never deleted), so it is there to answer.
          const [first] = yield* sql<{ providerStatus: number; body: unknown }>`SELECT provider_status, body FROM platform_idempotency
                  WHERE workspace_id = ${call.workspaceId} AND family = ${platform.family.id} AND token = ${token}`
          return { providerStatus: first!.providerStatus, body: parseJson(first!.body) }
        }
      }
      yield* sandboxCall.store.fill(platform.generate(call.workspaceId), fills)
      const result = yield* platform.handle(sandboxCall)
      if (token !== undefined) {
        yield* sql`UPDATE platform_idempotency SET provider_status = ${result.providerStatus}, body = ${JSON.stringify(result.body)}::jsonb
                WHERE workspace_id = ${call.workspaceId} AND family = ${platform.family.id} AND token = ${token}`
      }
      return result
    })
    const executeWith = Effect.fnUntraced(function* (call: ToolCall, platform: SandboxPlatform, sandboxCall: SandboxCall) {
      const fills = yield* authorized(call.workspaceId, platform.family.id)
      if (fills === null) return platform.unauthorized
      // A read changes nothing, so running it again is safe: no idempotency record (the table grows with writes
      // only) and no transaction of its own — the day's metrics catch up in their own unit (SandboxStore.fill),
      // then the read runs.
      if (kindOfCall(call.tool, call.arguments) === "read") return yield* provide(readWith(call, platform, sandboxCall, fills))
      // One transaction per write: the day's metrics catch up, the change lands and its answer is kept under
      // the token together, or not at all.
      return yield* sql.withTransaction(provide(writeWith(call, platform, sandboxCall, fills)))
    })

    const connections = SandboxConnections.of({
      connect: (workspaceId, family, userId, credential) => {
        const platform = byFamily.get(family)
        if (platform === undefined) return Effect.fail(new PlatformUnavailable({ platform: family, message: `no sandbox platform "${family}"` }))
        return connectWith(platform, workspaceId, family, userId, credential).pipe(unavailable(family, "connect"))
      },
      disconnect: (workspaceId, family) =>
        sql`DELETE FROM platform_connections WHERE workspace_id = ${workspaceId} AND family = ${family}`.pipe(
          Effect.asVoid, unavailable(family, "disconnect")),
      connected: (workspaceId) => connectedFamilies(workspaceId).pipe(unavailable("platforms", "connections"))
    })

    const platforms = Platforms.of({
      families: sandboxPlatforms.map((p) => p.family),
      tools: sandboxPlatforms.flatMap((p) => p.tools),
      accounts: (workspaceId, only) => accountsOf(workspaceId, only).pipe(ourOutage("Platforms.accounts")),
      preview: (call): Effect.Effect<ProposedChange, PlatformUnavailable> => {
        const platform = platformOf(call)
        if (platform === undefined) return unknownFamily(call)
        const sandboxCall = sandboxCallOf(call, platform)
        return provide(previewWith(call, platform, sandboxCall)).pipe(unavailable(platform.family.id, "preview"))
      },
      execute: (call): Effect.Effect<PlatformAnswer, PlatformUnavailable> => {
        const platform = platformOf(call)
        if (platform === undefined) return unknownFamily(call)
        const sandboxCall = sandboxCallOf(call, platform)
        return executeWith(call, platform, sandboxCall).pipe(
          unavailable(platform.family.id, "execute"),
          Effect.withSpan("platforms.execute", { attributes: { tool: call.tool.name } })
        )
      }
    })
    return Context.make(Platforms, platforms).pipe(Context.add(SandboxConnections, connections))
  })
)
