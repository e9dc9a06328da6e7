// The server's configuration in tests: the defaults of `npm start` on localhost, on `dataDir` (and PostgreSQL at
// `databaseUrl` when given).
import { builtInProducts, defaultInputLimits, defaultRateLimitPolicy, defaultWorkLeases } from "@adgate/core"
import { Option, Redacted } from "effect"
import { defaultGentleClose } from "@adgate/adapters-http/gentleClose"
import type { AppConfig } from "../../src/config.ts"

export const testConfig = (dataDir: string, databaseUrl: Option.Option<string> = Option.none()): AppConfig => ({
  port: 8787,
  host: Option.none(),
  baseUrl: "http://localhost:8787",
  databaseUrl: Option.map(databaseUrl, Redacted.make),
  dataDir,
  smtpUrl: Option.none(),
  mailFrom: "adgate <no-reply@localhost>",
  adminEmail: Option.none(),
  adminPassword: Option.none(),
  credentialsKey: Option.none(),
  rateLimits: defaultRateLimitPolicy,
  inputLimits: defaultInputLimits,
  trustedProxies: [],
  gentleClose: defaultGentleClose,
  tracing: false,
  recognisedProducts: builtInProducts,
  metricsAddress: Option.none(),
  metricsToken: Option.none(),
  shutdownDelaySeconds: 0,
  preparedStatements: true,
  workLeases: defaultWorkLeases,
  taskRunnerConcurrency: 8
})
