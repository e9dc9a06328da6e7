// The server's configuration, read from the environment (README §Configuration):
// PORT, BASE_URL (the issuer), DATABASE_URL, ADGATE_DATA_DIR, SMTP_URL, the first admin, the credentials key, the
// rate limits (ADGATE_LIMIT_<NAME>, ADGATE_RATE_LIMITS; docs/limits.md), the search text's maximum
// (ADGATE_MAX_SEARCH_QUERY_LENGTH), the lingering close (ADGATE_LINGER_MS, ADGATE_LINGER_MAX_BYTES), TRUSTED_PROXIES
// and ADGATE_TRACING.
import { Config, Effect, Option, Redacted, Result } from "effect"
import { resolve } from "node:path"
import { readFileSync } from "node:fs"
import {
  builtInProducts, decodeRecognisedProducts, defaultInputLimits, defaultLimits, type InputLimitsShape, limitNames, type Limit,
  type LimitName, passwordMaxLength, passwordMinLength, passwordProblem, type RateLimitPolicy, type RecognisedProduct,
  defaultWorkLeases, type WorkLeasesShape
} from "@adgate/core"
import { compileTrustedProxies, defaultGentleClose, type GentleCloseOptions } from "adgate/server"
import { ConfigurationInvalid } from "./errors.ts"

export interface AppConfig {
  readonly port: number
  /** Interface to listen on; all interfaces when unset. */
  readonly host: Option.Option<string>
  /** The issuer and the base of `/api/mcp`, `/api/v1`: an origin without path. */
  readonly baseUrl: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** Absolute path of the data folder (embedded database, credentials key file). */
  readonly dataDir: string
  readonly smtpUrl: Option.Option<Redacted.Redacted<string>>
  /** The sender of outgoing mail; default `adgate <no-reply@<BASE_URL host>>`. */
  readonly mailFrom: string
  readonly adminEmail: Option.Option<string>
  readonly adminPassword: Option.Option<Redacted.Redacted<string>>
  readonly credentialsKey: Option.Option<Redacted.Redacted<string>>
  /** Every limiter's limit, and whether limits apply at all (docs/limits.md). */
  readonly rateLimits: RateLimitPolicy
  /** The JSON entry points' input limits (docs/limits.md, Request bodies and search text). */
  readonly inputLimits: InputLimitsShape
  /** Addresses and CIDR ranges of the reverse proxies whose X-Forwarded-For is believed; empty trusts nobody. */
  readonly trustedProxies: ReadonlyArray<string>
  /** How a connection closes after bytes the HTTP parser refused (docs/limits.md, Closing a connection). */
  readonly gentleClose: GentleCloseOptions
  /**
   * Whether Effect records spans without an OTLP endpoint (`ADGATE_TRACING`, default off): seen by nobody, for
   * debugging with stack traces. With an endpoint (tracing.ts, the OTEL_* variables) spans are recorded and exported
   * either way. Off, every `Effect.fn`, SQL statement and `withSpan` gets a no-op span instead, and errors capture no
   * stack (`Error.stackTraceLimit = 0`: Effect.fn captures one per call otherwise; bench/README.md).
   */
  readonly tracing: boolean
  /** The recognised products: the built-in list, then those of ADGATE_RECOGNISED_PRODUCTS (docs/decisions.md). */
  readonly recognisedProducts: ReadonlyArray<RecognisedProduct>
  /** Where Prometheus scrapes GET /metrics (ADGATE_METRICS_ADDRESS, `host:port`); none (the default): no listener. */
  readonly metricsAddress: Option.Option<{ readonly host: string; readonly port: number }>
  /** A bearer token the scraper must send (ADGATE_METRICS_TOKEN); none: the listener's address is the protection. */
  readonly metricsToken: Option.Option<Redacted.Redacted<string>>
  /**
   * How long a stopping process keeps serving with readiness 503 before it closes its listener, when a load balancer
   * probes it (ADGATE_SHUTDOWN_DELAY_SECONDS, default 5; docs/operations.md, Running it in production).
   */
  readonly shutdownDelaySeconds: number
  /** Named prepared statements on PostgreSQL (ADGATE_DATABASE_PREPARED_STATEMENTS, default on; off behind PgBouncer). */
  readonly preparedStatements: boolean
  /** How long a process holds claimed background work before another takes it over (docs/limits.md, Leases). */
  readonly workLeases: WorkLeasesShape
  /** How many tasks this process runs side by side (ADGATE_TASK_RUNNER_CONCURRENCY, 1 to 100, default 8). */
  readonly taskRunnerConcurrency: number
}

/** A whole number from `min` to `max` read from `variable`, or `fallback` when unset; anything else stops the start. */
const wholeNumber = (variable: string, min: number, max: number, fallback: number, unit: string) =>
  Effect.gen(function* () {
    const raw = yield* Config.option(Config.NonEmptyString(variable))
    if (Option.isNone(raw)) return fallback
    const value = Number(raw.value.trim())
    if (!Number.isInteger(value) || value < min || value > max)
      return yield* new ConfigurationInvalid({ message: `${variable} must be a whole number of ${unit} from ${min} to ${max}` })
    return value
  })

/** ADGATE_TASK_RUNNER_CONCURRENCY: a whole number from 1 to 100 (docs/limits.md). */
const readTaskRunnerConcurrency = wholeNumber("ADGATE_TASK_RUNNER_CONCURRENCY", 1, 100, 8, "tasks")

/** ADGATE_SHUTDOWN_DELAY_SECONDS: whole seconds from 0 to 300. */
const readShutdownDelay = wholeNumber("ADGATE_SHUTDOWN_DELAY_SECONDS", 0, 300, 5, "seconds")

/** `host:port` or `[v6]:port`, or the reason it is not one. */
export const parseMetricsAddress = (text: string): { readonly host: string; readonly port: number } | string => {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text.trim())
  const port = Number(match?.[3])
  if (match === null || !(port >= 1 && port <= 65535)) return "ADGATE_METRICS_ADDRESS must be host:port, e.g. 127.0.0.1:9464"
  return { host: match[1] ?? match[2]!, port }
}

const readMetricsAddress = Effect.gen(function* () {
  const raw = yield* Config.option(Config.NonEmptyString("ADGATE_METRICS_ADDRESS"))
  if (Option.isNone(raw)) return Option.none()
  const parsed = parseMetricsAddress(raw.value)
  if (typeof parsed === "string") return yield* new ConfigurationInvalid({ message: parsed })
  return Option.some(parsed)
})

/** The environment variable of a limiter: `registrations_per_address` → `ADGATE_LIMIT_REGISTRATIONS_PER_ADDRESS`. */
export const limitVariable = (name: LimitName): string => `ADGATE_LIMIT_${name.toUpperCase()}`

const windowUnits: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `<count>/<window>`, the window a number (default 1) and a unit s, m, h or d: `1000/1h`, `20/15m`, `30/m`. */
export const parseLimit = (text: string): Option.Option<Limit> => {
  const match = /^\s*(\d+)\s*\/\s*(\d*)\s*([smhd])\s*$/.exec(text)
  if (match === null) return Option.none()
  const count = Number(match[1])
  const windowMs = Number(match[2] === "" ? "1" : match[2]) * windowUnits[match[3]!]!
  return Number.isSafeInteger(count) && count > 0 && windowMs > 0 ? Option.some({ count, windowMs }) : Option.none()
}

const readRateLimits = Effect.gen(function* () {
  const switched = yield* Config.Literals(["on", "off"], "ADGATE_RATE_LIMITS").pipe(Config.withDefault("on" as const))
  const limits: Partial<Record<LimitName, Limit>> = {}
  for (const name of limitNames) {
    const variable = limitVariable(name)
    const raw = yield* Config.option(Config.NonEmptyString(variable))
    if (Option.isNone(raw)) {
      limits[name] = defaultLimits[name]
      continue
    }
    const parsed = parseLimit(raw.value)
    if (Option.isNone(parsed))
      return yield* new ConfigurationInvalid({ message: `${variable} must be <count>/<window>, e.g. 1000/1h or 20/15m (units s, m, h, d)` })
    limits[name] = parsed.value
  }
  return { enabled: switched === "on", limits: { ...defaultLimits, ...limits } } satisfies RateLimitPolicy
})

/** A lease's environment variable (or the refused mail's wait, ADGATE_MAIL_RETRY, read the same way) and the field it sets. */
export const leaseVariables = {
  ADGATE_WRITE_EXECUTION_LEASE: "writeExecutionMs",
  ADGATE_TASK_LEASE: "taskMs",
  ADGATE_MAIL_SEND_LEASE: "mailSendMs",
  ADGATE_MAIL_RETRY: "mailRetryMs",
  ADGATE_IDEMPOTENCY_KEY_LEASE: "idempotencyKeyMs"
} as const satisfies Record<string, keyof WorkLeasesShape>

/** `<number><unit>`, the unit s, m or h: `90s`, `2m`; from 1 second to 24 hours. */
export const parseLease = (text: string): Option.Option<number> => {
  const match = /^\s*(\d+)\s*([smh])\s*$/.exec(text)
  if (match === null) return Option.none()
  const ms = Number(match[1]) * windowUnits[match[2]!]!
  return ms >= 1_000 && ms <= 86_400_000 ? Option.some(ms) : Option.none()
}

const readWorkLeases = Effect.gen(function* () {
  const leases: { -readonly [K in keyof WorkLeasesShape]: number } = { ...defaultWorkLeases }
  for (const [variable, field] of Object.entries(leaseVariables)) {
    const raw = yield* Config.option(Config.NonEmptyString(variable))
    if (Option.isNone(raw)) continue
    const parsed = parseLease(raw.value)
    if (Option.isNone(parsed))
      return yield* new ConfigurationInvalid({ message: `${variable} must be a duration from 1s to 24h, e.g. 60s or 2m (units s, m, h)` })
    leases[field] = parsed.value
  }
  return leases satisfies WorkLeasesShape
})

/** ADGATE_MAX_SEARCH_QUERY_LENGTH: the longest search text of REST `q` and MCP `search_tools`, 1 to 10000 characters. */
const readInputLimits = Effect.gen(function* () {
  const maxSearchQueryLength = yield* wholeNumber("ADGATE_MAX_SEARCH_QUERY_LENGTH", 1, 10_000, defaultInputLimits.maxSearchQueryLength, "characters")
  return { ...defaultInputLimits, maxSearchQueryLength } satisfies InputLimitsShape
})

/** ADGATE_LINGER_MS and ADGATE_LINGER_MAX_BYTES: how long, and how many bytes, a closing connection discards. */
const readGentleClose = Effect.gen(function* () {
  return {
    lingerMs: yield* wholeNumber("ADGATE_LINGER_MS", 0, 60_000, defaultGentleClose.lingerMs, "milliseconds"),
    maxDiscardBytes: yield* wholeNumber("ADGATE_LINGER_MAX_BYTES", 0, 100 * 1024 * 1024, defaultGentleClose.maxDiscardBytes, "bytes")
  } satisfies GentleCloseOptions
})

const readTrustedProxies = Effect.gen(function* () {
  const raw = yield* Config.String("TRUSTED_PROXIES").pipe(Config.withDefault(""))
  const list = raw.split(/[\s,]+/).filter((entry) => entry !== "")
  // proxy-addr refuses what is not an address, a CIDR range or one of its names (loopback, linklocal, uniquelocal).
  yield* Effect.try({
    try: () => compileTrustedProxies(list),
    catch: (e) => new ConfigurationInvalid({ message: `TRUSTED_PROXIES: ${e instanceof Error ? e.message : "not a list of addresses or CIDR ranges"}` })
  })
  return list
})

/**
 * ADGATE_RECOGNISED_PRODUCTS: the path of a JSON file listing more recognised products, added after the built-in ones.
 * Checked at start: a file that cannot be read, is not JSON, or names a product by an http or loopback-only
 * identifier stops the server with the reason.
 */
const readRecognisedProducts = Effect.gen(function* () {
  const path = yield* Config.option(Config.NonEmptyString("ADGATE_RECOGNISED_PRODUCTS"))
  if (Option.isNone(path)) return builtInProducts
  const invalid = (reason: string) => new ConfigurationInvalid({ message: `ADGATE_RECOGNISED_PRODUCTS (${path.value}): ${reason}` })
  const text = yield* Effect.try({ try: () => readFileSync(path.value, "utf8"), catch: () => invalid("the file cannot be read") })
  const json = yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: () => invalid("the file is not JSON") })
  const decoded = decodeRecognisedProducts(json)
  if (Result.isFailure(decoded)) return yield* invalid(decoded.failure)
  return [...builtInProducts, ...decoded.success]
})

const originOf = (raw: string) =>
  Effect.gen(function* () {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return yield* Effect.fail(`BASE_URL is not a URL: ${raw}`)
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return yield* Effect.fail("BASE_URL must be http or https")
    if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "")
      return yield* Effect.fail("BASE_URL must be an origin only (scheme, host, port), e.g. https://adgate.example")
    return url.origin
  })

/** A secret setting (a URL with credentials, a password, a key): absent when unset or empty, redacted when shown. */
const optionalSecret = (name: string) =>
  Config.option(Config.Redacted(name)).pipe(Config.map(Option.filter((value) => Redacted.value(value) !== "")))

/**
 * ADGATE_ADMIN_PASSWORD: the first admin's password, held to the one rule of every password (core passwordProblem)
 * here, so a start with one the sign-in form could never send stops with a line naming the variable, never a tag.
 */
const readAdminPassword = Effect.gen(function* () {
  const password = yield* optionalSecret("ADGATE_ADMIN_PASSWORD")
  if (Option.isSome(password) && passwordProblem(Redacted.value(password.value)) !== null)
    return yield* new ConfigurationInvalid({ message: `ADGATE_ADMIN_PASSWORD must have ${passwordMinLength} to ${passwordMaxLength} characters` })
  return password
})

/** Reads and checks the configuration from the current ConfigProvider (the environment by default). */
export const loadAppConfig = Effect.gen(function* () {
  const port = yield* Config.Port("PORT").pipe(Config.withDefault(8787))
  const host = yield* Config.option(Config.NonEmptyString("HOST"))
  const rawBaseUrl = yield* Config.option(Config.NonEmptyString("BASE_URL"))
  const baseUrl = yield* originOf(Option.getOrElse(rawBaseUrl, () => `http://localhost:${port}`)).pipe(
    Effect.mapError((message) => new ConfigurationInvalid({ message }))
  )
  const dataDir = resolve(yield* Config.NonEmptyString("ADGATE_DATA_DIR").pipe(Config.withDefault("./.adgate-data")))
  const mailFrom = yield* Config.NonEmptyString("MAIL_FROM").pipe(Config.withDefault(`adgate <no-reply@${new URL(baseUrl).hostname}>`))
  return {
    port,
    host,
    baseUrl,
    databaseUrl: yield* optionalSecret("DATABASE_URL"),
    dataDir,
    smtpUrl: yield* optionalSecret("SMTP_URL"),
    mailFrom,
    adminEmail: yield* Config.option(Config.NonEmptyString("ADGATE_ADMIN_EMAIL")),
    adminPassword: yield* readAdminPassword,
    credentialsKey: yield* optionalSecret("ADGATE_CREDENTIALS_KEY"),
    rateLimits: yield* readRateLimits,
    inputLimits: yield* readInputLimits,
    trustedProxies: yield* readTrustedProxies,
    gentleClose: yield* readGentleClose,
    tracing: (yield* Config.Literals(["on", "off"], "ADGATE_TRACING").pipe(Config.withDefault("off" as const))) === "on",
    recognisedProducts: yield* readRecognisedProducts,
    metricsAddress: yield* readMetricsAddress,
    metricsToken: yield* optionalSecret("ADGATE_METRICS_TOKEN"),
    shutdownDelaySeconds: yield* readShutdownDelay,
    preparedStatements: (yield* Config.Literals(["on", "off"], "ADGATE_DATABASE_PREPARED_STATEMENTS").pipe(Config.withDefault("on" as const))) === "on",
    workLeases: yield* readWorkLeases,
    taskRunnerConcurrency: yield* readTaskRunnerConcurrency
  } satisfies AppConfig
})
