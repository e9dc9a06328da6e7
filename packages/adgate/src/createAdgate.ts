// adgate for every host (docs/embedding.md, createAdgate): one call with the base URL, the database, the credentials
// key and the host's ports as plain async functions, answering a web-standard fetch handler, a Node request listener,
// and start()/stop() for the background work. The database is opened (and migrated) once, by migrate(), start() or
// the first request, whichever comes first.
import { Cause, Context, Effect, Exit, Fiber, Layer, Logger, Scope } from "effect"
import type { Redacted } from "effect"
import { HttpEffect, HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { setCreditBalance } from "@adgate/core"
import { withRoomForRequests } from "@adgate/adapters-http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type AdgateDatabase, adgatePorts } from "./adgatePorts.ts"
import {
  directoryReads, type HostDirectory, type HostMail, type HostPlatforms, type HostSignInOptions, mailDeliveryLayer, platformsLayer, signInLayer
} from "./hostPorts.ts"
import { adgateBackground, adgateMetadataFetcher, type AdgatePolicy, adgatePolicy, adgateRoutes } from "./layers.ts"
import { formatLogfmtOneMessage, LogfmtLogger } from "./LogfmtLogger.ts"
import { MailDeliveryLog } from "./MailSender.ts"
import { adgatePaths, ownsPath } from "./paths.ts"
import { withoutPasswords } from "./withoutPasswords.ts"

export interface AdgateOptions {
  /** The public origin (scheme, host, port, no path): the OAuth issuer and the base of `/api/mcp` and `/api/v1`. */
  readonly baseUrl: string
  /** `{ postgres: url }`, `{ pglite: dataFolder }` or `{ memory: true }`. */
  readonly database: AdgateDatabase
  /**
   * 32 bytes in base64 that encrypt platform credentials at rest; every process sharing a database needs the same.
   * Without it: the key file in `keyDir` or the PGlite data folder (created once), or, in memory, a random key.
   */
  readonly credentialsKey?: Redacted.Redacted<string> | string | undefined
  /** The folder of the credentials key file when no key is given. */
  readonly keyDir?: string | undefined
  /** The host's platforms; default: the sandbox platforms (docs/platforms.md). */
  readonly platforms?: HostPlatforms | undefined
  /** The host's people, workspaces, roles and plans; default: adgate's own tables (and its CLI to fill them). */
  readonly directory?: HostDirectory | undefined
  /** The host's own sign-in; default: adgate's sign-in pages and session cookie. */
  readonly signIn?: HostSignInOptions | undefined
  /** The host's mail delivery; default: one log line per mail (recipient and subject). */
  readonly mail?: HostMail | undefined
  /** Limits, trusted proxies, recognised products; each defaults as in docs/limits.md. */
  readonly policy?: AdgatePolicy | undefined
  /** Where log lines go: `"logfmt"` (stdout, the default), `"none"`, or a function given each logfmt line. */
  readonly log?: "logfmt" | "none" | ((line: string) => void) | undefined
}

export interface Adgate {
  /** Answers one request on a path adgate owns (`owns`); any other path answers 404. */
  readonly fetch: (request: Request) => Promise<Response>
  /** The same as a Node `http` request listener. */
  readonly nodeListener: (request: IncomingMessage, response: ServerResponse) => void
  /** The path prefixes adgate answers (docs/embedding.md, The paths adgate owns). */
  readonly paths: ReadonlyArray<string>
  /** Whether a request path is adgate's: mount adgate for exactly these, the host keeps the rest. */
  readonly owns: (pathname: string) => boolean
  /** Opens the database and runs the migrations that have not run (idempotent; also done by start and the first request). */
  readonly migrate: () => Promise<void>
  /** migrate(), then the background work: housekeeping, the outbox readers, the task runner, the mail sender. */
  readonly start: () => Promise<void>
  /** Stops the background work, lets nothing new start, and closes the database. Final: make a new one to start again. */
  readonly stop: () => Promise<void>
  /**
   * Sets a workspace's credits balance (the ledger records the difference, audited as `credits.set`): for a host whose
   * tools cost credits. Rejects when the workspace is unknown or the balance is not a whole number of 0 or more.
   */
  readonly setCredits: (workspaceId: string, balance: number, reason: string) => Promise<void>
  /** Runs an Effect of the core's services (`@adgate/core`) on adgate's ports: the way in for anything else. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, AdgateServices>) => Promise<A>
}

/** The services adgate's ports provide to `run`: every core port, the SQL client, the policy. */
export type AdgateServices = Layer.Success<ReturnType<typeof adgateLayer>>

class AdgateHttp extends Context.Service<AdgateHttp, {
  readonly handle: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | Scope.Scope>
}>()("adgate/AdgateHttp") {}

const loggerOf = (log: AdgateOptions["log"]) =>
  log === undefined || log === "logfmt"
    ? LogfmtLogger
    : log === "none"
      ? Logger.layer([])
      : Logger.layer([Logger.map(formatLogfmtOneMessage, log)])

/** The whole of adgate as one layer: its ports (with the host's), its policy, and its routes as one handler. */
const adgateLayer = (options: AdgateOptions) => {
  const ports = adgatePorts(
    { baseUrl: options.baseUrl, database: options.database, credentialsKey: options.credentialsKey, keyDir: options.keyDir },
    {
      platforms: options.platforms === undefined ? undefined : platformsLayer(options.platforms),
      directory: options.directory === undefined ? undefined : directoryReads(options.directory),
      signIn: options.signIn === undefined ? undefined : signInLayer(options.signIn),
      mailDelivery: options.mail === undefined ? MailDeliveryLog : mailDeliveryLayer(options.mail)
    }
  )
  const http = Layer.effect(AdgateHttp, Effect.map(HttpRouter.toHttpEffect(adgateRoutes()), (handle) => ({ handle: handle as AdgateHttp["Service"]["handle"] })))
  return http.pipe(
    Layer.provide(adgateMetadataFetcher),
    Layer.provideMerge(Layer.mergeAll(ports, adgatePolicy(options.policy ?? {})))
  )
}

/** What a request gets while adgate cannot open its database: 503 with Retry-After (fail closed), nothing else said. */
const unavailable = () =>
  new Response(JSON.stringify({ error: "temporarily_unavailable", message: "The service cannot answer now; try again shortly." }), {
    status: 503,
    headers: { "content-type": "application/json", "cache-control": "no-store", "retry-after": "5" }
  })

/** One line naming the failure; a URL's password (a driver may quote the database URL) never reaches it. */
const failureMessage = (cause: unknown) => {
  const error = cause as { readonly _tag?: string; readonly message?: string } | null
  const said = typeof error?.message === "string" ? `: ${withoutPasswords(error.message)}` : ""
  return `adgate could not start: ${error?._tag ?? "failure"}${said}`
}

/** adgate for a host: see docs/embedding.md. Nothing opens until migrate(), start() or the first request. */
export const createAdgate = (options: AdgateOptions): Adgate => {
  const logger = loggerOf(options.log)
  const layer = adgateLayer(options).pipe(Layer.provideMerge(logger))
  let scope: Scope.Closeable | undefined
  let built: Promise<{
    readonly context: Context.Context<Layer.Success<typeof layer>>
    readonly web: (request: Request) => Promise<Response>
    readonly node: (request: IncomingMessage, response: ServerResponse) => void
  }> | undefined
  let background: Fiber.Fiber<never, unknown> | undefined
  let stopped = false

  const build = () => {
    if (stopped) return Promise.reject(new Error("adgate was stopped"))
    built ??= (async () => {
      const opened = Scope.makeUnsafe()
      const exit = await Effect.runPromiseExit(Layer.buildWithScope(layer, opened))
      if (Exit.isFailure(exit)) {
        await Effect.runPromise(Scope.close(opened, exit))
        // The next call tries again: the database may be back.
        built = undefined
        throw new Error(failureMessage(Cause.squash(exit.cause)))
      }
      scope = opened
      const context = exit.value
      const { handle } = Context.get(context, AdgateHttp)
      // Each request runs with the whole context, so that what a handler reads at request time (the policy's
      // references, the logger) is the host's, not a default.
      // withRoomForRequests: a request adds about eleven services to this context; without room Effect copies the
      // whole context once per request (adapters-http serve.ts, bench/README.md round 7b).
      const requestBase = withRoomForRequests(context)
      const web = HttpEffect.toWebHandlerWith<Layer.Success<typeof layer>, HttpServerRequest.HttpServerRequest | Scope.Scope>(requestBase)(handle)
      const node = await Effect.runPromiseWith(requestBase)(NodeHttpServer.makeHandler(handle, { scope: opened }))
      return { context, web, node }
    })()
    return built
  }

  const fetch = async (request: Request): Promise<Response> => {
    let ready
    try {
      ready = await build()
    } catch {
      return unavailable()
    }
    return ready.web(request)
  }

  const nodeListener = (request: IncomingMessage, response: ServerResponse) => {
    build().then((ready) => ready.node(request, response), () => {
      const answer = unavailable()
      response.writeHead(answer.status, Object.fromEntries(answer.headers))
      void answer.text().then((body) => response.end(body))
    })
  }

  const migrate = async () => {
    await build()
  }

  const start = async () => {
    const ready = await build()
    background ??= Effect.runForkWith(ready.context)(Layer.launch(adgateBackground()))
  }

  const stop = async () => {
    stopped = true
    if (background !== undefined) await Effect.runPromise(Fiber.interrupt(background))
    if (built !== undefined) await built.catch(() => undefined)
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    scope = undefined
  }

  const run = async <A, E>(effect: Effect.Effect<A, E, AdgateServices>): Promise<A> => {
    const ready = await build()
    return Effect.runPromiseWith(ready.context)(effect)
  }

  const setCredits = (workspaceId: string, balance: number, reason: string) =>
    run(Effect.asVoid(setCreditBalance(workspaceId, balance, reason)))

  return { fetch, nodeListener, paths: adgatePaths, owns: ownsPath, migrate, start, stop, setCredits, run }
}
