// One process at a time on the embedded database's data folder (PGlite is single-process): a lock file holding
// the owner's pid, taken before the database opens and removed after it closes. A lock left by a dead process
// is taken over.
import { Effect, Layer } from "effect"
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { join } from "node:path"
import { DataDirInUse } from "./errors.ts"

export const lockFileName = "adgate.lock"

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryLock = (path: string): number | "locked" => {
  try {
    const fd = openSync(path, "wx", 0o600)
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return "locked"
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    const owner = Number.parseInt(readFileSync(path, "utf8").trim(), 10)
    return Number.isFinite(owner) ? owner : 0
  }
}

/** Takes `<dataDir>/adgate.lock` for the life of the scope, or fails with DataDirInUse naming the holder's pid. */
export const acquireDataDirLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const path = join(dataDir, lockFileName)
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = tryLock(path)
        if (result === "locked") return path
        if (result !== process.pid && result > 0 && alive(result)) return yield* new DataDirInUse({ dataDir, pid: result })
        unlinkSync(path) // stale: its process is gone
      }
      return yield* new DataDirInUse({ dataDir, pid: 0 })
    }),
    (path) =>
      Effect.sync(() => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path)
        } catch {
          // already gone
        }
      })
  )

export const DataDirLock = (dataDir: string) => Layer.effectDiscard(acquireDataDirLock(dataDir))
