// The adgate server process (`npm start`): configuration from the environment, the database (PostgreSQL or the
// embedded PGlite), first-start seeding, the HTTP application, housekeeping, the task runner, the mail sender and, on
// the embedded database, the CLI's admin socket. SIGTERM or SIGINT stops it gracefully (listener closed, database
// closed, lock released) with exit code 0.
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
// By module path, not the package's barrel (which loads the unused `redis` client: see adapters-http serve.ts).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { SqlClient } from "effect/sql"
import { adgateBackground, adgateMetadataFetcher, adgatePolicy, adgateRoutes, LogfmtLogger, withoutPasswords } from "adgate"
import {
  absolute, databaseConnections, dataFolderInUse, DevelopmentMailbox, mailHtml, makeMetrics, makeShutdownFlag, metricsLayer,
  outboxBacklog, pagePaths, pendingMigrations, Readiness, serveHttp, serveMetrics, workInProgress
} from "adgate/server"
import { AdminSocket } from "./adminSocket.ts"
import { appPorts } from "./appPorts.ts"
import { type AppConfig, loadAppConfig } from "./config.ts"
import { MailDeliveryServer } from "./MailSender.ts"
import { defaultAdminEmail, seedOnFirstStart } from "./seed.ts"
import { TracingLayer } from "./tracing.ts"

/** Set on SIGTERM or SIGINT, before the runtime interrupts the server: /health/ready answers 503 shutting_down. */
export const shutdownFlag = makeShutdownFlag()

export const serverLayer = (config: AppConfig, shutdown: { readonly isSet: () => boolean; readonly probed?: () => void } = shutdownFlag) => {
  const ports = appPorts(config)
  // Readiness reads the migrations table through the process's own pool (readiness.ts).
  const readiness = Layer.effect(Readiness, Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      shuttingDown: shutdown.isSet, pendingMigrations: Effect.provideService(pendingMigrations, SqlClient.SqlClient, sql),
      ...(shutdown.probed === undefined ? {} : { probed: shutdown.probed })
    }
  })).pipe(Layer.provide(ports))
  const seeded = Layer.effectDiscard(seedOnFirstStart({ adminEmail: config.adminEmail, adminPassword: config.adminPassword }))
  // Every route adgate owns (the OAuth server, discovery, REST, MCP, the pages), as a host mounts them.
  const app = adgateRoutes()
  // adgate's routes unchanged, so the token endpoint's plain requests may be answered directly (docs/architecture.md).
  const http = serveHttp({
    app, port: config.port, gentleClose: config.gentleClose, directRoutes: true,
    ...Option.match(config.host, { onNone: () => ({}), onSome: (host) => ({ host }) })
  })
  // Without SMTP_URL the mail is only logged, so the instance's admin (the first admin, ADGATE_ADMIN_EMAIL) reads it
  // on the development mailbox page (docs/decisions.md, Mail and the development mailbox).
  const instanceAdmin = Option.getOrElse(config.adminEmail, () => defaultAdminEmail)
  const mailbox = Layer.effect(DevelopmentMailbox, Effect.gen(function* () {
    const open = Option.isNone(config.smtpUrl)
    if (open) yield* Effect.logInfo(`SMTP_URL is not set: mail is logged, and ${instanceAdmin} reads it at ${absolute(config.baseUrl, pagePaths.mailbox)}`)
    return { open, instanceAdmins: [instanceAdmin] }
  }))
  // Prometheus metrics only when ADGATE_METRICS_ADDRESS is set (docs/operations.md): their own listener, the outbox
  // gauges read through the process's pool at scrape time.
  const metrics = Option.match(config.metricsAddress, {
    onNone: () => Layer.empty,
    onSome: (address) => Layer.unwrap(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const read = <A>(gauge: Effect.Effect<A, unknown, SqlClient.SqlClient>) => () => Effect.runPromise(Effect.provideService(gauge, SqlClient.SqlClient, sql))
      const made = makeMetrics({
        outbox: read(outboxBacklog), work: read(workInProgress),
        ...(Option.isSome(config.databaseUrl) ? { databaseConnections: read(databaseConnections) } : {})
      })
      const token = Option.map(config.metricsToken, Redacted.value)
      yield* serveMetrics(made, { ...address, ...Option.match(token, { onNone: () => ({}), onSome: (t) => ({ token: t }) }) })
      yield* Effect.logInfo(`metrics at http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}/metrics`)
      return metricsLayer(made)
    })).pipe(Layer.provide(ports))
  })
  const policy = Layer.mergeAll(
    adgatePolicy({
      rateLimits: config.rateLimits, inputLimits: config.inputLimits, trustedProxies: config.trustedProxies,
      recognisedProducts: config.recognisedProducts, workLeases: config.workLeases,
      taskRunnerConcurrency: config.taskRunnerConcurrency
    }),
    mailbox, readiness, metrics
  )
  return Layer.mergeAll(
    // Seeding comes first so that the first request already finds the demo workspace.
    http.pipe(Layer.provide(seeded)),
    // Housekeeping, resuming approved writes, ending expired connections, the outbox readers, the task runner and the
    // mail sender (SMTP with SMTP_URL, else the log).
    adgateBackground().pipe(
      Layer.provide(MailDeliveryServer({ smtpUrl: config.smtpUrl, from: config.mailFrom, htmlOf: (text) => mailHtml(text, config.baseUrl) }))
    ),
    // The CLI's way in while this server holds the embedded database; with PostgreSQL the CLI opens the database
    // itself (docs/decisions.md, "The operator CLI while the server runs").
    Option.isNone(config.databaseUrl) ? AdminSocket(config.dataDir) : Layer.empty
  ).pipe(Layer.provide(adgateMetadataFetcher), Layer.provide(ports), Layer.provide(policy))
}

const program = Effect.gen(function* () {
  const config = yield* loadAppConfig
  yield* Effect.logInfo(`adgate starting: issuer ${config.baseUrl}, ${Option.isSome(config.databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `embedded database in ${config.dataDir}`}`)
  // Processes sharing one PostgreSQL database must share the key that encrypts platform credentials at rest.
  if (Option.isSome(config.databaseUrl) && Option.isNone(config.credentialsKey))
    yield* Effect.logWarning(`ADGATE_CREDENTIALS_KEY is not set: using the key file in ${config.dataDir}; every process sharing this database needs the same key`)
  // Said once everything is released (listener closed, requests in flight finished, database closed): an operator
  // reading the log knows the stop was orderly. A failed start is reported on stderr instead (teardown).
  // Tracing off also means no call-site stacks: every traced `Effect.fn` call and every SDK error otherwise captures
  // one (measured: ~14 % of an MCP tools/call's server CPU, bench/README.md), and no log line of adgate prints a
  // stack (failures are logged by tag, a failed start as one line). ADGATE_TRACING=on keeps V8's default of 10 frames.
  if (!config.tracing) Error.stackTraceLimit = 0
  // Layer.launch, with one finalizer added after everything is up, so that it runs first on SIGTERM: the drain.
  return yield* Effect.scoped(Effect.gen(function* () {
    // Spans off unless asked for (an OTLP endpoint, or ADGATE_TRACING=on): a recorded span costs a span object, its
    // clock reads and its attributes on every traced call and SQL statement (tracing.ts; bench/README.md).
    yield* Layer.build(serverLayer(config).pipe(Layer.provide(TracingLayer(config.tracing))))
    yield* Effect.addFinalizer(() => drainBeforeClosing(config.shutdownDelaySeconds))
    return yield* Effect.never
  })).pipe(
    Effect.onExit((exit) => Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? Effect.logInfo("adgate stopped") : Effect.void)
  )
}).pipe(Effect.provide(LogfmtLogger))

/** A load balancer probed /health/ready this recently: it is watching this process and will see it stop being ready. */
const watchedWithinMs = 60_000

/**
 * The first step of a stop: while a load balancer watches (a readiness probe within the last minute), keep serving
 * for `seconds` with /health/ready answering 503 shutting_down, so that the balancer takes the process out of
 * rotation before its listener closes; requests it still sends meanwhile are answered. A process nobody probes
 * (no balancer) closes at once. Then the listener closes and requests in flight finish (serve.ts).
 */
const drainBeforeClosing = (seconds: number) =>
  Effect.suspend(() =>
    seconds > 0 && shutdownFlag.isSet() && Date.now() - shutdownFlag.lastProbeAt() < watchedWithinMs
      ? Effect.logInfo(`stopping: readiness answers 503, serving ${seconds} s more while the load balancer takes this process out`).pipe(
        Effect.andThen(Effect.sleep(`${seconds} seconds`)))
      : Effect.void)

const oneLine = (text: unknown) => withoutPasswords(String(text ?? "")).replace(/\s+/g, " ").trim()

/**
 * What a failed start (or a crash) says on stderr: one line naming the setting or the database, never a stack
 * trace or a secret. Interruption (SIGTERM) says nothing.
 */
export const describeServerFailure = (cause: Cause.Cause<unknown>): string | undefined => {
  if (Cause.hasInterruptsOnly(cause)) return undefined
  const error = Cause.squash(cause) as {
    readonly _tag?: string
    readonly message?: string
    readonly cause?: { readonly message?: string; readonly code?: string }
  } | null
  switch (error?._tag) {
    case "ConfigError":
      return `adgate: configuration: ${oneLine(error.cause?.message ?? error.message)}`
    case "ConfigurationInvalid":
      return `adgate: configuration: ${oneLine(error.message)}`
    // The message says what is wrong with the key (its length, or the key file), never the key.
    case "CredentialKeyInvalid":
      return `adgate: configuration: ${oneLine(error.message)} (check ADGATE_CREDENTIALS_KEY, or the key file in ADGATE_DATA_DIR)`
    case "SqlError":
    case "MigrationError": {
      const held = dataFolderInUse(error)
      if (held !== null)
        return `adgate: the data folder ${held.dir} is in use by another adgate process${held.pid === null ? "" : ` (pid ${held.pid})`}: ` +
          "the embedded database allows one process at a time; run several servers against PostgreSQL (DATABASE_URL)."
      return `adgate: the database could not be opened: ${oneLine(error.message)} (check DATABASE_URL or ADGATE_DATA_DIR)`
    }
    case "AdminSocketRefused":
      return `adgate: ${oneLine(error.message)} (check ADGATE_DATA_DIR)`
    case "ServeError":
      return `adgate: cannot listen: ${oneLine(error.cause?.code ?? error.cause?.message ?? error.message)} (check PORT and HOST)`
    default:
      return `adgate: stopped by an unexpected failure: ${oneLine(error?._tag ?? (error instanceof Error ? error.name : typeof error))}`
  }
}

// A stop by signal is an orderly end: exit code 0 (the default teardown answers 130 to an interruption).
const teardown = <E, A>(exit: Exit.Exit<A, E>, onExit: (code: number) => void) => {
  const said = Exit.isFailure(exit) ? describeServerFailure(exit.cause) : undefined
  if (said !== undefined) process.stderr.write(said + "\n")
  onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)
}

// The failure is reported by `teardown` as one clear line, not as a logged cause with its stack.
if (import.meta.main) {
  // Beside the runtime's own handlers (which interrupt the program): the flag is up before the listener closes.
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, shutdownFlag.set)
  NodeRuntime.runMain(program, { teardown, disableErrorReporting: true })
}
