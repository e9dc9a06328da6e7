// The fingerprint of one tool call: SHA-256 of the canonical JSON of its tool name and arguments. A write request's
// approval is bound to it (checklist 177) and an Idempotency-Key replays only for it (checklist 175).
import { Effect } from "effect"
import type { Schema } from "effect"
import { Secrets } from "../ports/Secrets.ts"

/**
 * JSON with object keys sorted at every depth and no whitespace, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are
 * one payload. Arrays keep their order (it is meaningful).
 */
export const canonicalJson = (value: Schema.Json): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((item: Schema.Json) => canonicalJson(item)).join(",")}]`
  const record = value as { readonly [key: string]: Schema.Json }
  const keys = Object.keys(record).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key]!)}`).join(",")}}`
}

/** SHA-256 (base64url) of `{"arguments":…,"tool":…}` in canonical JSON. */
export const hashToolCall = (tool: string, args: Schema.JsonObject): Effect.Effect<string, never, Secrets> =>
  Effect.flatMap(Secrets, (secrets) => secrets.hash(canonicalJson({ arguments: args, tool })))
