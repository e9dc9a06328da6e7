// A real adgate server for the MCP tests: the HTTP application with /api/mcp mounted as apps/server mounts it, on
// the SQL stores (PGlite in a temporary folder, or a PostgreSQL database when DATABASE_URL is set, which a second
// server can share), the sandbox platforms, MiniSearch and Ajv, bound to 127.0.0.1 on an ephemeral port.
import { afterAll, beforeAll } from "vitest"
import { Context, Effect, Exit, Layer, Logger, Option, Redacted, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { NodeHttpServer } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { createServer } from "node:http"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  Directory,
  Issuer,
  MetadataDocumentFetcher,
  PasswordHasher,
  PeopleStore,
  Platforms,
  type PlatformsShape,
  Prefix,
  type RateLimitPolicy,
  RateLimits,
  Secrets,
  type Workspace,
  WorkspaceId,
  UserId
} from "@adgate/core"
import { SecretsWebCrypto } from "@adgate/core/testing"
import { CredentialCipher, makeCredentialCipher, SqlDatabase, SqlStores } from "@adgate/adapters-sql"
import { connectSandboxPlatforms, PlatformsSandbox, ToolSearchMiniSearch } from "@adgate/adapters-platforms"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"
import { answerParseErrorsGently, makeHttpApp, PasswordHasherScrypt } from "@adgate/adapters-http"
import { makeMcpRoutes, McpRoutes, type McpRoutesOptions } from "../../src/index.ts"
import { cookiesFrom, csrfTokenIn, refuseEverything } from "../../../adapters-http/test/support/testServer.ts"

export const databaseUrl = Option.fromNullishOr(process.env["DATABASE_URL"]).pipe(Option.filter((u) => u.length > 0))

export interface Person { readonly id: UserId; readonly email: string; readonly password: string }

export interface McpTestServer {
  readonly origin: string
  readonly mcpUrl: URL
  readonly close: () => Promise<void>
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
  readonly fetch: (path: string, init?: RequestInit) => Promise<Response>
  /** Every log line the server wrote (logfmt), oldest first. */
  readonly logs: ReadonlyArray<string>
}

export interface SeededWorld {
  readonly paid: Workspace
  readonly admin: Person
  readonly editor: Person
}

const admin = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))

/** A fresh database for one suite: a PostgreSQL database (dropped by the returned function) or a PGlite folder. */
export const freshDatabase = async (): Promise<{ readonly url: Option.Option<string>; readonly dataDir: string; readonly drop: () => Promise<void> }> => {
  const dataDir = mkdtempSync(join(tmpdir(), "adgate-mcp-"))
  if (Option.isNone(databaseUrl)) return { url: Option.none(), dataDir, drop: async () => {} }
  const name = `adgate_mcp_test_${Math.random().toString(36).slice(2, 10)}`
  await Effect.runPromise(admin(databaseUrl.value, (sql) => sql`CREATE DATABASE ${sql(name)}`))
  const target = new URL(databaseUrl.value)
  target.pathname = `/${name}`
  return {
    url: Option.some(target.toString()), dataDir,
    drop: () => Effect.runPromise(admin(databaseUrl.value, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie, Effect.asVoid))
  }
}

/** Starts one server process's worth of layers on `database`; a second call on the same PostgreSQL is a second process. */
export const startMcpTestServer = async (
  database: { readonly url: Option.Option<string>; readonly dataDir: string },
  options: {
    readonly metadataDocumentFetcher?: Layer.Layer<MetadataDocumentFetcher>
    /** The rate-limit policy (RateLimits); default: the service's defaults. */
    readonly rateLimits?: RateLimitPolicy
    /** The /api/mcp routes' options; default: McpRoutes'. */
    readonly mcp?: McpRoutesOptions
    /** Wraps the platforms the server calls (a test watching its calls); default: the platforms as they are. */
    readonly platforms?: (real: PlatformsShape) => PlatformsShape
  } = {}
): Promise<McpTestServer> => {
  const scope = Effect.runSync(Scope.make())
  try {
    const listening = await Effect.runPromise(Layer.buildWithScope(NodeHttpServer.layer(() => answerParseErrorsGently(createServer()), { port: 0, host: "127.0.0.1" }), scope))
    const bound = Context.get(listening, HttpServer.HttpServer).address
    if (bound._tag === "UnixPathAddress") throw new Error("expected a TCP address")
    const origin = `http://127.0.0.1:${bound.port}`
    const sqlDatabase = SqlDatabase({ databaseUrl: Option.map(database.url, Redacted.make), dataDir: database.dataDir })
    const cipher = Layer.succeed(CredentialCipher, CredentialCipher.of(makeCredentialCipher(new Uint8Array(32).fill(7))))
    const ports = Layer.mergeAll(PlatformsSandbox, ToolSearchMiniSearch, ArgumentValidatorAjv).pipe(
      Layer.provideMerge(Layer.mergeAll(
        SqlStores, SecretsWebCrypto, PasswordHasherScrypt, Issuer.layer(origin), cipher,
        options.metadataDocumentFetcher ?? refuseEverything,
        options.rateLimits === undefined ? Layer.empty : Layer.succeed(RateLimits, options.rateLimits)
      ).pipe(Layer.provideMerge(sqlDatabase))),
      Layer.orDie
    )
    const built = await Effect.runPromise(Layer.buildWithScope(ports, scope))
    const portsContext = options.platforms === undefined ? built : Context.add(built, Platforms, options.platforms(Context.get(built, Platforms)))
    const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provide(effect, portsContext) as Effect.Effect<A, E>)
    const app = Layer.mergeAll(makeHttpApp(), options.mcp === undefined ? McpRoutes : makeMcpRoutes(options.mcp))
    const logs: Array<string> = []
    await Effect.runPromise(Layer.buildWithScope(
      HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provide(Layer.mergeAll(Layer.succeedContext(portsContext), Layer.succeedContext(listening),
          Logger.layer([Logger.map(Logger.formatLogFmt, (line) => { logs.push(line) })])))
      ),
      scope
    ))
    return {
      origin,
      mcpUrl: new URL("/api/mcp", origin),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
      run,
      fetch: (path, init) => fetch(new URL(path, origin), { redirect: "manual", ...init }),
      logs
    }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  }
}

/** A paid workspace with the four sandbox platforms connected, an admin and an editor (who decides writes). */
export const seedWorld = (server: McpTestServer): Promise<SeededWorld> =>
  server.run(Effect.gen(function* () {
    const secrets = yield* Secrets
    const dir = yield* Directory
    const people = yield* PeopleStore
    const hasher = yield* PasswordHasher
    const paid: Workspace = { id: WorkspaceId.make(yield* secrets.generate(Prefix.workspace)), name: "Acme Ads", plan: "paid", credits: 1000, createdAt: 0 }
    yield* dir.createWorkspace(paid)
    const person = (email: string, password: string, role: "admin" | "editor") => Effect.gen(function* () {
      const id = UserId.make(yield* secrets.generate(Prefix.user))
      yield* dir.createUser({ id, email, name: email, createdAt: 0 })
      yield* people.setPasswordHash(id, yield* hasher.hash(password))
      yield* dir.setRole(paid.id, id, Option.some(role))
      return { id, email, password }
    })
    const adminPerson = yield* person("admin@paid.test", "admin-password-1", "admin")
    const editor = yield* person("editor@paid.test", "editor-password-1", "editor")
    yield* connectSandboxPlatforms(paid.id, adminPerson.id)
    return { paid, admin: adminPerson, editor }
  }))

/** One suite's server: a fresh database, a server on it and the seeded world before all tests; closed and dropped after. */
export const useMcpTestServer = (ready: (server: McpTestServer, world: SeededWorld) => void) => {
  let server: McpTestServer | undefined
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const database = await freshDatabase()
    drop = database.drop
    server = await startMcpTestServer(database)
    ready(server, await seedWorld(server))
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await drop?.()
  })
}

/** Signs `person` in through the sign-in page (its CSRF token and pre-session cookie); answers the session's cookies. */
export const signIn = async (server: McpTestServer, person: Person): Promise<string> => {
  const page = await server.fetch("/signin")
  const pre = cookiesFrom(page)
  const answer = await server.fetch("/signin", {
    method: "POST",
    body: new URLSearchParams({ csrf_token: csrfTokenIn(await page.text()), email: person.email, password: person.password, return_to: "/" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin, cookie: pre }
  })
  if (answer.status !== 303) throw new Error(`sign-in failed with ${answer.status}`)
  return cookiesFrom(answer, pre)
}
