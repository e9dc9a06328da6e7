// What no log line may hold (README, Logs; checklist P 180): any of the service's own secrets, known by their prefixes
// (codes, access and refresh tokens, API keys, client secrets: every one is its prefix and 43 base64url characters),
// and the given values (passwords, session cookies). For the fault suites, whose failing flows must not log what
// they were handling.
import { Prefix } from "@adgate/core"

const issued = new RegExp(
  `(?:${[Prefix.authorizationCode, Prefix.accessToken, Prefix.refreshToken, Prefix.apiKey, Prefix.clientSecret].join("|")})[A-Za-z0-9_-]{20}`
)

/** The first secret found in `lines`: an issued one by its prefix, or one of `values`; null when there is none. */
export const secretInLog = (lines: ReadonlyArray<string>, values: ReadonlyArray<string> = []): string | null => {
  const text = lines.join("\n")
  const found = issued.exec(text)
  if (found !== null) return found[0].slice(0, 12) + "…"
  const value = values.find((v) => v !== "" && text.includes(v))
  return value === undefined ? null : "a given value"
}
