// The server's configuration, read from the environment (README §Configuration):
// PORT, BASE_URL (the issuer), DATABASE_URL, ADGATE_DATA_DIR, SMTP_URL, the first admin, the credentials key.
import { Config, Effect, Option, Redacted } from "effect"
import { resolve } from "node:path"
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
}

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
    adminPassword: yield* optionalSecret("ADGATE_ADMIN_PASSWORD"),
    credentialsKey: yield* optionalSecret("ADGATE_CREDENTIALS_KEY")
  } satisfies AppConfig
})
