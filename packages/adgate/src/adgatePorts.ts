// The core ports of adgate on one database: PostgreSQL, the embedded PGlite in a data folder (which the SQL adapter
// holds with a lock file: one process at a time), or PGlite in memory. The host's ports (platforms, directory, who is
// signed in, mail delivery) replace adgate's defaults where the host gives them (docs/embedding.md).
import { Layer, Option, Redacted } from "effect"
import type { MailDelivery, Platforms, SignIn } from "@adgate/core"
import { Issuer } from "@adgate/core"
import {
  CredentialCipherAesGcm, type DirectoryReads, SecretsNodeCrypto, SqlDatabase, SqlStores, SqlStoresWithHostDirectory
} from "@adgate/adapters-sql"
import { MailWordsHttp, PasswordHasherScrypt } from "@adgate/adapters-http"
import { PlatformsSandbox, ToolSearchMiniSearch } from "@adgate/adapters-platforms"
import { ArgumentValidatorAjv } from "@adgate/adapters-jsonschema"
import { randomBytes } from "node:crypto"
import { MailDeliveryLog } from "./MailSender.ts"

/** Where adgate keeps its records. */
export type AdgateDatabase =
  /** PostgreSQL at this URL (any number of processes may share it). */
  | {
    readonly postgres: Redacted.Redacted<string> | string
    readonly maxConnections?: number
    /**
     * Named (server-side prepared) statements, cached per connection (default true). False sends every statement
     * unnamed: needed behind PgBouncer in transaction pooling mode before 1.21 (docs/operations.md, The connection pooler).
     */
    readonly preparedStatements?: boolean
  }
  /** The embedded PGlite in this data folder (one process at a time). */
  | { readonly pglite: string }
  /** PGlite in memory: nothing is kept once stopped (tests, demonstrations). */
  | { readonly memory: true }

export interface AdgatePortsOptions {
  /** The issuer and the base of `/api/mcp` and `/api/v1`: an origin (scheme, host, port) without a path. */
  readonly baseUrl: string
  readonly database: AdgateDatabase
  /**
   * 32 bytes in base64: encrypts platform credentials at rest (AES-256-GCM). Without it a key file in `keyDir` (by
   * default the PGlite data folder) is used or created; in memory a random key lives as long as the process.
   */
  readonly credentialsKey?: Redacted.Redacted<string> | string | undefined
  /** The folder of the credentials key file when no key is given (required on PostgreSQL without a key). */
  readonly keyDir?: string | undefined
}

/** The host's own implementations of adgate's host ports, as layers; each one given replaces adgate's default. */
export interface HostPortLayers {
  /** Default: the sandbox platforms (docs/platforms.md). */
  readonly platforms?: Layer.Layer<Platforms> | undefined
  /**
   * The host's people, workspaces, roles and plans, read when needed (DirectoryHostSql); default: adgate's own tables.
   * The credits ledger stays adgate's either way.
   */
  readonly directory?: DirectoryReads | undefined
  /** Default: adgate's own sign-in pages and session cookie. */
  readonly signIn?: Layer.Layer<SignIn> | undefined
  /** Default: one log line per mail (MailDeliveryLog). */
  readonly mailDelivery?: Layer.Layer<MailDelivery> | undefined
}

const redacted = (value: Redacted.Redacted<string> | string) => typeof value === "string" ? Redacted.make(value) : value

const databaseOptions = (database: AdgateDatabase) =>
  "postgres" in database
    ? {
      databaseUrl: Option.some(redacted(database.postgres)), dataDir: null,
      ...(database.maxConnections === undefined ? {} : { maxConnections: database.maxConnections }),
      ...(database.preparedStatements === undefined ? {} : { preparedStatements: database.preparedStatements })
    }
    : "pglite" in database
      // initdb of a new folder in a child process: the process's memory stays ~130 MiB lower (bench/README.md, round 7d).
      ? { databaseUrl: Option.none(), dataDir: database.pglite, pgliteInitdbInChild: true }
      : { databaseUrl: Option.none(), dataDir: null }

/** The database (migrated). Exposes SqlClient. */
export const adgateDatabase = (database: AdgateDatabase) => SqlDatabase(databaseOptions(database))

const cipher = (options: AdgatePortsOptions) => {
  const given = options.credentialsKey === undefined || options.credentialsKey === "" ? Option.none() : Option.some(redacted(options.credentialsKey))
  const keyDir = options.keyDir ?? ("pglite" in options.database ? options.database.pglite : undefined)
  // In memory nothing outlives the process, so neither need its key.
  if (Option.isNone(given) && keyDir === undefined && "memory" in options.database)
    return CredentialCipherAesGcm({ key: Option.some(Redacted.make(randomBytes(32).toString("base64"))), dataDir: "" })
  return CredentialCipherAesGcm({ key: given, dataDir: keyDir ?? "." })
}

/**
 * Every store and directory port from SQL, node:crypto secrets, scrypt passwords, the issuer, the platforms (the
 * sandboxes with their credentials sealed by the CredentialCipher, or the host's), the tool search, the words of
 * every mail (MailWords, beside the pages in adapters-http) and the tool-argument validator (Ajv): every port of the
 * tool pipeline; also SqlClient. The host's layers replace the defaults they stand for.
 */
export const adgatePorts = (options: AdgatePortsOptions, host: HostPortLayers = {}) => {
  const stores = Layer.mergeAll(host.directory === undefined ? SqlStores : SqlStoresWithHostDirectory(host.directory), SecretsNodeCrypto, PasswordHasherScrypt, Issuer.layer(options.baseUrl), cipher(options)).pipe(
    Layer.provideMerge(adgateDatabase(options.database))
  )
  const platforms = host.platforms ?? PlatformsSandbox
  const hostOnly = Layer.mergeAll(
    host.signIn ?? Layer.empty,
    host.mailDelivery ?? MailDeliveryLog
  )
  return Layer.mergeAll(platforms, ToolSearchMiniSearch, ArgumentValidatorAjv, MailWordsHttp).pipe(
    Layer.provideMerge(stores),
    Layer.provideMerge(hostOnly)
  )
}
