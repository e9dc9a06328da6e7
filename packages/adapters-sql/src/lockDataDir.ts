// One process at a time on a PGlite data folder: PGlite writes no postmaster.pid, so two processes opening one folder
// would both write its files and corrupt it. A lock file is created exclusively, refreshed while held, removed on close;
// a lock whose holder is gone (dead pid on this host, or not refreshed for 30 s) is taken over.
import { Effect, Schema } from "effect"
import type { Scope } from "effect"
import { SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"

export const dataDirLockFile = "adgate.lock"
const refreshEveryMs = 10_000
const staleAfterMs = 30_000

/** Tokens of the locks this process holds: a lock naming our pid but not one of these is a previous incarnation's. */
const heldHere = new Set<string>()

interface Holder {
  readonly pid: number
  readonly host: string
  readonly token: string
}

const errorCode = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined

const readHolder = (raw: string): Holder | undefined => {
  try {
    const parsed: unknown = JSON.parse(raw)
    if (typeof parsed !== "object" || parsed === null) return undefined
    const { pid, host, token } = parsed as Record<string, unknown>
    return typeof pid === "number" && typeof host === "string" && typeof token === "string" ? { pid, host, token } : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return errorCode(cause) === "EPERM"
  }
}

const isStale = (holder: Holder | undefined, mtimeMs: number): boolean => {
  if (holder !== undefined && heldHere.has(holder.token)) return false
  if (Date.now() - mtimeMs > staleAfterMs) return true
  if (holder === undefined || holder.host !== hostname()) return false
  return holder.pid === process.pid || !alive(holder.pid)
}

/** The cause inside the ConnectionError when another process holds the folder, for callers to explain it. */
export class DataFolderInUse extends Schema.TaggedError<DataFolderInUse>()("DataFolderInUse", {
  dir: Schema.String,
  pid: Schema.NullOr(Schema.Number),
  host: Schema.NullOr(Schema.String)
}) {}

/** The holder named by a failure of the embedded database's layer, when that failure is a held data folder. */
export const dataFolderInUse = (error: unknown): DataFolderInUse | null => {
  if (!SqlError.isSqlError(error)) return null
  const cause = (error.reason as { readonly cause?: unknown }).cause
  return cause instanceof DataFolderInUse ? cause : null
}

const inUse = (dir: string, raw: string) => {
  const holder = readHolder(raw)
  const who = holder === undefined ? "another process" : `process ${holder.pid} on ${holder.host}`
  return new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      cause: new DataFolderInUse({ dir, pid: holder?.pid ?? null, host: holder?.host ?? null }),
      operation: "connect",
      message: `the PGlite data folder ${dir} is in use by ${who}: PGlite allows one process per folder ` +
        `(stop the other one, or use DATABASE_URL for several processes); a lock left by a crash is taken over ` +
        `within ${staleAfterMs / 1000} s, or remove ${join(dir, dataDirLockFile)}`
    })
  })
}

/** Writes the lock whole or not at all: `link` fails when the lock exists, so no reader sees half a file. */
const createExclusive = (path: string, content: string, token: string): boolean => {
  const temporary = `${path}.${token}.new`
  writeFileSync(temporary, content, { mode: 0o600 })
  try {
    linkSync(temporary, path)
    return true
  } catch (cause) {
    if (errorCode(cause) === "EEXIST") return false
    throw cause
  } finally {
    unlinkSync(temporary)
  }
}

const acquire = (dir: string): string => {
  const path = join(dir, dataDirLockFile)
  const token = randomBytes(16).toString("base64url")
  const content = JSON.stringify({ pid: process.pid, host: hostname(), token })
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, content, token)) {
      heldHere.add(token)
      return token
    }
    let raw: string
    let mtimeMs: number
    try {
      raw = readFileSync(path, "utf8")
      mtimeMs = statSync(path).mtimeMs
    } catch (cause) {
      if (errorCode(cause) === "ENOENT") continue
      throw cause
    }
    if (!isStale(readHolder(raw), mtimeMs)) throw inUse(dir, raw)
    // Take the stale lock over: move it aside atomically, and make sure what moved is the lock judged stale (another
    // starting process may have replaced it meanwhile; then put theirs back and give way).
    const aside = `${path}.${token}.stale`
    try {
      renameSync(path, aside)
    } catch (cause) {
      if (errorCode(cause) === "ENOENT") continue
      throw cause
    }
    const moved = readFileSync(aside, "utf8")
    if (moved !== raw) {
      try {
        linkSync(aside, path)
      } catch {
        // Someone holds the folder now either way.
      }
      unlinkSync(aside)
      throw inUse(dir, moved)
    }
    unlinkSync(aside)
  }
  throw inUse(dir, "")
}

const release = (dir: string, token: string) => {
  heldHere.delete(token)
  const path = join(dir, dataDirLockFile)
  try {
    if (readHolder(readFileSync(path, "utf8"))?.token === token) unlinkSync(path)
  } catch {
    // Already gone: nothing to release.
  }
}

/** Holds `<dir>/adgate.lock` for the life of the scope; fails with a clear ConnectionError when another process has it. */
export const lockDataDir = (dir: string): Effect.Effect<void, SqlError.SqlError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const token = acquire(dir)
        const path = join(dir, dataDirLockFile)
        const refresh = setInterval(() => {
          try {
            const now = new Date()
            utimesSync(path, now, now)
          } catch {
            // A missing lock is noticed by the next process that starts; this one keeps running.
          }
        }, refreshEveryMs)
        refresh.unref()
        return { token, refresh }
      },
      catch: (cause) =>
        SqlError.isSqlError(cause)
          ? cause
          : new SqlError.SqlError({
            reason: new SqlError.ConnectionError({
              operation: "connect",
              message: `cannot lock the PGlite data folder ${dir}`,
              cause
            })
          })
    }),
    ({ refresh, token }) =>
      Effect.sync(() => {
        clearInterval(refresh)
        release(dir, token)
      })
  ).pipe(Effect.asVoid)
