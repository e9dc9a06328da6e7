// A real adgate HTTP server for tests: bound to 127.0.0.1 on an ephemeral port first, then built with that
// origin as the Issuer, on the core's in-memory stores (with the in-memory platforms) or the SQL stores (PGlite or
// PostgreSQL, with the sandbox platforms), seeded with known people, workspaces and connected platform accounts.
import { Context, Effect, Exit, Layer, Logger, Option, Redacted, Ref, References, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { NodeHttpServer } from "@effect/platform-node"
import {
  type ArgumentValidator,
  GrantReader,
  PlatformCallDeadlineMs,
  Platforms,
  type PlatformsShape,
  type ToolSearch,
  Directory,
  type DirectoryShape,
  Issuer,
  MetadataDocumentFetcher,
  MetadataDocumentUnavailable,
  PasswordHasher,
  PeopleStore,
  Prefix,
  defaultRateLimitPolicy,
  RateLimits,
  type RateLimitPolicy,
  Secrets,
  type Role,
  type Workspace,
  WorkspaceId,
  UserId
} from "@adgate/core"
import {
  CoreMemory,
  GrantReaderMemory,
  type MemoryPlatformState,
  memoryPlatformFixture,
  OperationsMemory,
  PlatformsMemory,
  PlatformsMemoryState,
  ToolSearchMemory,
  type DirectoryMemoryControl,
  SecretsWebCrypto,
  makeDirectoryMemory
} from "@adgate/core/testing"
import { CredentialCipherAesGcm, SqlDatabase, SqlStores } from "@adgate/adapters-sql"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"
import { connectSandboxPlatforms, PlatformsSandbox, SandboxConnections, ToolSearchMiniSearch } from "@adgate/adapters-platforms"
import { makeHttpApp } from "../../src/HttpApp.ts"
import { TrustedProxies } from "../../src/clientAddress.ts"
import { DevelopmentMailbox, type DevelopmentMailboxShape } from "../../src/mail/MailboxRoutes.ts"
import { PasswordHasherScrypt } from "../../src/people/PasswordHasherScrypt.ts"
import { answerParseErrorsGently } from "../../src/gentleClose.ts"
import { type DirectRoute, DirectRoutes, directRoutesServed, DirectRoutingServer } from "../../src/directRoutes.ts"
import { Readiness, type ReadinessChecks } from "../../src/readiness.ts"
import { type Metrics, metricsLayer } from "../../src/metrics.ts"

export interface TestUser {
  readonly id: UserId
  readonly email: string
  readonly name: string
  readonly password: string
}

export interface TestServerOptions {
  /** Defaults to a fetcher that refuses every URL. */
  readonly metadataDocumentFetcher?: Layer.Layer<MetadataDocumentFetcher>
  /** The issuer the app believes it serves, e.g. `https://as.example` behind a TLS terminator; default: the bound origin. */
  readonly issuer?: string
  /** The rate-limit policy (RateLimits); default: the service's defaults, with generous sign-in failure limits. */
  readonly rateLimits?: RateLimitPolicy
  /** TRUSTED_PROXIES; default: none. The test client's peer is 127.0.0.1. */
  readonly trustedProxies?: ReadonlyArray<string>
  /** The development mailbox page (no SMTP_URL); default: closed, as with SMTP_URL set. */
  readonly mailbox?: DevelopmentMailboxShape
  /** Wraps the platforms the server calls (a fault test's failing platform); default: the platforms as they are. */
  readonly platforms?: (real: PlatformsShape) => PlatformsShape
  /** Wraps the directory the server's routes read (a test watching its calls); default: the directory as it is. */
  readonly directory?: (real: DirectoryShape) => DirectoryShape
  /** How long a platform call may take (PlatformCallDeadlineMs); default: the core's. */
  readonly platformCallDeadlineMs?: number
  /** The readiness checks (shutdown flag, pending migrations); default: none pending, not stopping. */
  readonly readiness?: ReadinessChecks
  /** Prometheus metrics (makeMetrics) fed by the request middleware and the core's Observations; default: none. */
  readonly metrics?: Metrics
  /**
   * What is given to the routes' layer only (`makeHttpApp().pipe(Layer.provide(…))`), not to the server, as a host does
   * that serves adgateRoutes with HttpRouter.toWebHandler: a policy, a logger, a tracer; default: none.
   */
  readonly routesOnly?: Layer.Layer<never>
  /**
   * Whether the server offers requests to the direct routes (directRoutes.ts) as serveHttp's does; default: yes. The
   * server records no spans (References.TracerEnabled off, as `npm start` without an OTLP endpoint), so the token
   * route registers its direct handler; a test that needs spans turns them on in `routesOnly`.
   */
  readonly directRoutes?: boolean
  /** Whether the server records spans (References.TracerEnabled, as with an OTLP endpoint); default: no. */
  readonly spans?: boolean
}

/** The ports of the tool pipeline (REST /api/v1): operations stores, platforms, tool search, argument validator. */
type PipelinePorts = Layer.Success<typeof OperationsMemory> | Platforms | ToolSearch | ArgumentValidator
type StorePorts = Layer.Success<typeof CoreMemory> | Directory | GrantReader | PipelinePorts
type Ports = StorePorts | Secrets | Issuer | MetadataDocumentFetcher | PasswordHasher

export interface TestServer {
  /** `http://127.0.0.1:<port>`, also the Issuer. */
  readonly origin: string
  readonly close: () => Promise<void>
  readonly users: { readonly admin: TestUser; readonly editor: TestUser; readonly viewer: TestUser }
  /** `paid`: admin, editor, viewer. `free`: the same admin, as admin. */
  readonly workspaces: { readonly paid: Workspace; readonly free: Workspace }
  /** Makes the Directory answer DirectoryUnavailable (or answer again). */
  readonly directory: DirectoryMemoryControl
  /** Runs an effect against the server's own ports (stores, directory, secrets …). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Ports>) => Promise<A>
  /** How many requests the direct routes answered (directRoutes.ts). */
  readonly directAnswers: () => number
  /** Every log line the server wrote (logfmt), for checks that no secret is logged. */
  readonly logs: ReadonlyArray<string>
  /** fetch relative to the origin; redirects are not followed. */
  readonly fetch: (path: string, init?: RequestInit) => Promise<Response>
  /** GET a page with an optional Cookie header. */
  readonly get: (path: string, cookie?: string) => Promise<Response>
  /** POST an x-www-form-urlencoded form (with Origin set to our origin, as a browser does). */
  readonly postForm: (path: string, fields: Readonly<Record<string, string>>, cookie?: string) => Promise<Response>
  /** Signs in over HTTP (GET /signin, POST /signin with its CSRF token); returns the Cookie header value. */
  readonly signIn: (email: string, password: string) => Promise<string>
}

/** `body` run while `server`'s Directory answers DirectoryUnavailable; it answers again afterwards, whatever happened. */
export const whileDirectoryDown = async <A>(server: Pick<TestServer, "run" | "directory">, body: () => Promise<A>): Promise<A> => {
  await server.run(server.directory.setUnavailable(true))
  try {
    return await body()
  } finally {
    await server.run(server.directory.setUnavailable(false))
  }
}

/** The value of `<input name="csrf_token" value="…">` in a page. */
export const csrfTokenIn = (page: string): string => {
  const match = /name="csrf_token" value="([^"]+)"/.exec(page)
  if (match?.[1] === undefined) throw new Error("no csrf_token field in the page")
  return match[1]
}

/** `name=value` pairs of the response's Set-Cookie headers, joined for a Cookie header (expired ones dropped). */
export const cookiesFrom = (response: Response, previous = ""): string => {
  const jar = new Map<string, string>()
  for (const pair of previous.split(/;\s*/)) {
    const i = pair.indexOf("=")
    if (i > 0) jar.set(pair.slice(0, i), pair.slice(i + 1))
  }
  for (const header of response.headers.getSetCookie()) {
    const [pair = ""] = header.split(";", 1)
    const i = pair.indexOf("=")
    if (i <= 0) continue
    const name = pair.slice(0, i)
    const value = pair.slice(i + 1)
    if (value === "" || /max-age=0/i.test(header)) jar.delete(name)
    else jar.set(name, value)
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
}

/** The default MetadataDocumentFetcher of a test server: every URL refused, so no test reaches the network. */
export const refuseEverything = Layer.succeed(MetadataDocumentFetcher, MetadataDocumentFetcher.of({
  fetch: (url) => Effect.fail(new MetadataDocumentUnavailable({ url, reason: "the test server fetches no documents" }))
}))

const seedPeople = {
  admin: { email: "admin@paid.test", name: "Ada Admin", password: "admin-password-1" },
  editor: { email: "editor@paid.test", name: "Eddie Editor", password: "editor-password-1" },
  viewer: { email: "viewer@paid.test", name: "Vic Viewer", password: "viewer-password-1" }
} as const

/**
 * The in-memory platforms' shared fixture (core memoryPlatformFixture) on the seeded workspaces: the paid workspace
 * has an `ads` account (act_paid) with three campaigns and a `shop` account (shop_paid); the free one an `ads` account
 * (act_free).
 */
const seedMemoryPlatforms = (paid: WorkspaceId, free: WorkspaceId) =>
  Effect.gen(function* () {
    const state = yield* Effect.serviceOption(PlatformsMemoryState)
    if (Option.isNone(state)) return
    yield* Ref.update(state.value, (s): MemoryPlatformState => ({
      ...s,
      ...memoryPlatformFixture(
        { ads: { workspaceId: paid, id: "act_paid", name: "Acme Ads" }, shop: { workspaceId: paid, id: "shop_paid", name: "Acme Shop" } },
        [{ workspaceId: free, id: "act_free", name: "Free Ads" }]
      )
    }))
  })

/** The sandbox platforms (SQL servers): all four connected in the paid workspace by its admin. */
const seedSandboxPlatforms = (paid: string, adminId: string) =>
  Effect.gen(function* () {
    const connections = yield* Effect.serviceOption(SandboxConnections)
    if (Option.isNone(connections)) return
    yield* connectSandboxPlatforms(paid, adminId).pipe(Effect.provideService(SandboxConnections, connections.value), Effect.orDie)
  })

/** The in-memory server: CoreMemory, OperationsMemory, DirectoryMemory (with its control), the in-memory platforms, Web Crypto secrets. */
export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const { directory, control } = await Effect.runPromise(makeDirectoryMemory)
  const stores = GrantReaderMemory.pipe(
    Layer.provideMerge(Layer.mergeAll(CoreMemory, OperationsMemory, PlatformsMemory({}), ToolSearchMemory, ArgumentValidatorAjv)),
    Layer.provideMerge(Layer.succeed(Directory, directory))
  )
  return startWith(stores, control, options)
}

export interface SqlTestServerOptions extends TestServerOptions {
  /** A PostgreSQL database (fresh, migrated on start) instead of the embedded PGlite in `dataDir`. */
  readonly databaseUrl?: string
}

/**
 * The same server on the SQL stores over the embedded PGlite database in `dataDir` (or PostgreSQL), migrated on
 * start, with the four sandbox platforms connected in the paid workspace and MiniSearch as the tool search.
 */
export const startTestServerSql = async (dataDir: string, options: SqlTestServerOptions = {}): Promise<Omit<TestServer, "directory">> => {
  const database = SqlDatabase({
    databaseUrl: options.databaseUrl === undefined ? Option.none() : Option.some(Redacted.make(options.databaseUrl)),
    dataDir
  })
  const stores = Layer.mergeAll(SqlStores, PlatformsSandbox, ToolSearchMiniSearch, ArgumentValidatorAjv).pipe(
    Layer.provideMerge(CredentialCipherAesGcm({ key: Option.none(), dataDir })),
    Layer.provideMerge(database),
    Layer.orDie
  )
  const { directory: _none, ...server } = await startWith(stores, noControl, options)
  return server
}

const noControl: DirectoryMemoryControl = { setUnavailable: () => Effect.die("the SQL directory has no availability switch") }

const startWith = async (
  stores: Layer.Layer<StorePorts>,
  control: DirectoryMemoryControl,
  options: TestServerOptions
): Promise<TestServer> => {
  const scope = Effect.runSync(Scope.make())
  const logs: Array<string> = []
  const nodeServer = new DirectRoutingServer()
  let directAnswers = 0
  // Counts the requests the direct routes answer (directAnswers), registered as the routes register them.
  const registerCounted = (route: DirectRoute) =>
    nodeServer.register((serving, scope) => {
      const handler = route(serving, scope)
      return handler === undefined ? undefined : (request, response) => {
        const taken = handler(request, response)
        if (taken) directAnswers++
        return taken
      }
    })
  const captureLogs = Logger.layer([Logger.map(Logger.formatLogFmt, (line) => { logs.push(line) })])
  try {
    const listening = await Effect.runPromise(
      Layer.buildWithScope(NodeHttpServer.layer(() => answerParseErrorsGently(nodeServer), { port: 0, host: "127.0.0.1" }), scope)
    )
    const bound = Context.get(listening, HttpServer.HttpServer).address
    if (bound._tag === "UnixPathAddress") throw new Error("expected a TCP address")
    const origin = `http://127.0.0.1:${bound.port}`

    const ports = Layer.mergeAll(
      stores,
      SecretsWebCrypto,
      Issuer.layer(options.issuer ?? origin),
      options.metadataDocumentFetcher ?? refuseEverything,
      PasswordHasherScrypt
    )
    const built = await Effect.runPromise(Layer.buildWithScope(ports, scope))
    const withPlatforms = options.platforms === undefined
      ? built
      : Context.add(built, Platforms, options.platforms(Context.get(built, Platforms)))
    const wrapped = options.directory === undefined
      ? withPlatforms
      : Context.add(withPlatforms, Directory, options.directory(Context.get(withPlatforms, Directory)))
    const portsContext = options.platformCallDeadlineMs === undefined
      ? wrapped
      : Context.add(wrapped, PlatformCallDeadlineMs, options.platformCallDeadlineMs)
    const run = <A, E>(effect: Effect.Effect<A, E, Ports>) => Effect.runPromise(Effect.provide(effect, portsContext))

    const seeded = await run(Effect.gen(function* () {
      const secrets = yield* Secrets
      const dir = yield* Directory
      const people = yield* PeopleStore
      const hasher = yield* PasswordHasher
      const makeWorkspace = (name: string, plan: "free" | "paid", credits: number) =>
        Effect.gen(function* () {
          const workspace: Workspace = { id: WorkspaceId.make(yield* secrets.generate(Prefix.workspace)), name, plan, credits, createdAt: 0 }
          yield* dir.createWorkspace(workspace)
          return workspace
        })
      const makeUser = (person: { readonly email: string; readonly name: string; readonly password: string }) =>
        Effect.gen(function* () {
          const id = UserId.make(yield* secrets.generate(Prefix.user))
          yield* dir.createUser({ id, email: person.email, name: person.name, createdAt: 0 })
          yield* people.setPasswordHash(id, yield* hasher.hash(person.password))
          return { id, ...person }
        })
      const paid = yield* makeWorkspace("Acme Ads", "paid", 1000)
      const free = yield* makeWorkspace("Free Corner", "free", 0)
      const [admin, editor, viewer] = yield* Effect.all(
        [makeUser(seedPeople.admin), makeUser(seedPeople.editor), makeUser(seedPeople.viewer)],
        { concurrency: "unbounded" }
      )
      const member = (w: Workspace, u: TestUser, role: Role) => dir.setRole(w.id, u.id, Option.some(role))
      yield* member(paid, admin, "admin")
      yield* member(paid, editor, "editor")
      yield* member(paid, viewer, "viewer")
      yield* member(free, admin, "admin")
      return { users: { admin, editor, viewer }, workspaces: { paid, free } }
    }))
    await Effect.runPromise(Effect.provide(
      Effect.andThen(seedMemoryPlatforms(seeded.workspaces.paid.id, seeded.workspaces.free.id),
        seedSandboxPlatforms(seeded.workspaces.paid.id, seeded.users.admin.id)),
      portsContext
    ))

    const app = options.routesOnly === undefined ? makeHttpApp() : makeHttpApp().pipe(Layer.provide(options.routesOnly))
    // Unless a test sets the policy, sign-in failures are generous so that suites can try wrong passwords freely.
    const generous = { count: 10_000, windowMs: 60_000 }
    const rateLimits = options.rateLimits ?? {
      ...defaultRateLimitPolicy,
      limits: { ...defaultRateLimitPolicy.limits, signin_failures_per_address: generous, signin_failures_per_account: generous }
    }
    await Effect.runPromise(
      Layer.buildWithScope(
        // The direct routes serve once the application is built and served (its routes have registered theirs).
        (options.directRoutes === false
          ? HttpRouter.serve(app, { disableLogger: true, disableListenLog: true })
          : directRoutesServed(nodeServer).pipe(Layer.provideMerge(HttpRouter.serve(app, { disableLogger: true, disableListenLog: true })))
        ).pipe(
          Layer.provide(Layer.mergeAll(
            Layer.succeedContext(portsContext), Layer.succeedContext(listening), captureLogs,
            Layer.succeed(References.TracerEnabled, options.spans === true),
            ...(options.directRoutes === false ? [] : [Layer.succeed(DirectRoutes, registerCounted)]),
            Layer.succeed(RateLimits, rateLimits),
            ...(options.trustedProxies === undefined ? [] : [Layer.succeed(TrustedProxies, options.trustedProxies)]),
            ...(options.mailbox === undefined ? [] : [Layer.succeed(DevelopmentMailbox, options.mailbox)]),
            ...(options.readiness === undefined ? [] : [Layer.succeed(Readiness, options.readiness)]),
            ...(options.metrics === undefined ? [] : [metricsLayer(options.metrics)])
          ))
        ),
        scope
      )
    )

    const fetchAt = (path: string, init?: RequestInit) => fetch(new URL(path, origin), { redirect: "manual", ...init })
    const get = (path: string, cookie?: string) => fetchAt(path, cookie === undefined ? {} : { headers: { cookie } })
    const postForm = (path: string, fields: Readonly<Record<string, string>>, cookie?: string) =>
      fetchAt(path, {
        method: "POST",
        body: new URLSearchParams(fields).toString(),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: options.issuer ?? origin,
          ...(cookie === undefined ? {} : { cookie })
        }
      })
    const signIn = async (email: string, password: string) => {
      const page = await get("/signin")
      const preCookie = cookiesFrom(page)
      const csrf = csrfTokenIn(await page.text())
      const answer = await postForm("/signin", { csrf_token: csrf, email, password, return_to: "/" }, preCookie)
      if (answer.status !== 303) throw new Error(`sign-in failed with ${answer.status}`)
      await answer.body?.cancel()
      return cookiesFrom(answer, preCookie)
    }

    return {
      origin,
      close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
      users: seeded.users,
      workspaces: seeded.workspaces,
      directory: control,
      run,
      directAnswers: () => directAnswers,
      logs,
      fetch: fetchAt,
      get,
      postForm,
      signIn
    }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  }
}
