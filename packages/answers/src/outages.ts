// A refusal that is an outage of ours or of a platform (a store, the directory, a platform that did not answer): both
// surfaces answer it 503 / `temporarily_unavailable` (or `platform_unavailable`) and log one WARN line naming the
// port that failed, so an outage is found in the log by its port, not only by `status=503`.
import { Effect } from "effect"

export interface Outage {
  /** The port that did not answer: `ApiKeyStore`, `Directory`, `Platforms` … */
  readonly port: string
  /** The port's operation when known (`ApiKeyStore.findByHash`), else the port. */
  readonly operation: string
}

/** The outage a refusal stands for, or null when it is not one. Never a message: it may quote input. */
export const outageOf = (refusal: unknown): Outage | null => {
  const tagged = refusal as { readonly _tag?: unknown; readonly operation?: unknown } | null
  switch (tagged?._tag) {
    case "StoreUnavailable": {
      const operation = typeof tagged.operation === "string" ? tagged.operation : "store"
      return { port: operation.split(".")[0] ?? operation, operation }
    }
    case "DirectoryUnavailable": return { port: "Directory", operation: "Directory" }
    case "PlatformUnavailable": return { port: "Platforms", operation: "Platforms" }
    default: return null
  }
}

/** The WARN line of an outage on `surface` (rest, mcp, oauth): the port, its operation and the failure's tag, never a message. */
export const logOutage = (surface: "rest" | "mcp" | "oauth", outage: Outage, failure: string) =>
  Effect.logWarning("port unavailable").pipe(Effect.annotateLogs({ surface, port: outage.port, operation: outage.operation, failure }))

/** The WARN line of a refusal that is an outage; nothing for any other refusal. */
export const logIfOutage = (surface: "rest" | "mcp" | "oauth", refusal: { readonly _tag: string }) => {
  const outage = outageOf(refusal)
  return outage === null ? Effect.void : logOutage(surface, outage, refusal._tag)
}
