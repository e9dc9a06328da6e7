// The adgate server process (`npm start`): configuration from the environment, the database (PostgreSQL or the
// embedded PGlite), first-start seeding, the HTTP application, housekeeping and the mail sender. SIGTERM or
// SIGINT stops it gracefully (listener closed, database closed, lock released) with exit code 0.
import { Cause, Effect, Exit, Layer, Logger, Option } from "effect"
import { NodeRuntime } from "@effect/platform-node"
import { HousekeepingLive } from "@adgate/adapters-sql"
import { MetadataDocumentFetcherHttps, serveHttp } from "@adgate/adapters-http"
import { appPorts } from "./appPorts.ts"
import { type AppConfig, loadAppConfig } from "./config.ts"
import { MailSender } from "./MailSender.ts"
import { seedOnFirstStart } from "./seed.ts"

export const serverLayer = (config: AppConfig) => {
  const ports = appPorts(config)
  const seeded = Layer.effectDiscard(seedOnFirstStart({ adminEmail: config.adminEmail, adminPassword: config.adminPassword }))
  const http = serveHttp({ port: config.port, ...Option.match(config.host, { onNone: () => ({}), onSome: (host) => ({ host }) }) })
  return Layer.mergeAll(
    // Seeding comes first so that the first request already finds the demo workspace.
    http.pipe(Layer.provide(seeded)),
    HousekeepingLive,
    MailSender({ smtpUrl: config.smtpUrl, from: config.mailFrom })
  ).pipe(Layer.provide(MetadataDocumentFetcherHttps()), Layer.provide(ports))
}

const program = Effect.gen(function* () {
  const config = yield* loadAppConfig
  yield* Effect.logInfo(`adgate starting: issuer ${config.baseUrl}, ${Option.isSome(config.databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `embedded database in ${config.dataDir}`}`)
  // Processes sharing one PostgreSQL database must share the key that encrypts platform credentials at rest.
  if (Option.isSome(config.databaseUrl) && Option.isNone(config.credentialsKey))
    yield* Effect.logWarning(`ADGATE_CREDENTIALS_KEY is not set: using the key file in ${config.dataDir}; every process sharing this database needs the same key`)
  return yield* Layer.launch(serverLayer(config))
}).pipe(Effect.provide(Logger.layer([Logger.consoleLogFmt])))

// A stop by signal is an orderly end: exit code 0 (the default teardown answers 130 to an interruption).
const teardown = <E, A>(exit: Exit.Exit<A, E>, onExit: (code: number) => void) =>
  onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)

if (import.meta.main) NodeRuntime.runMain(program, { teardown })
