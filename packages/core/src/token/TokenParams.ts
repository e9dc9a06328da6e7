// Form parameters of the token and revocation endpoints, as a flat list that keeps duplicates (RFC 6749 §3.2:
// parameters MUST NOT be included more than once). Empty values count as absent (OAuth 2.1 §3.1).
import { Effect } from "effect"
import { InvalidRequest } from "./errors.ts"

export type RawParams = ReadonlyArray<readonly [string, string]>

export interface TokenParams {
  readonly get: (name: string) => string | null
}

/** Refuses any parameter sent twice (decision 131: no exception, `resource` included). */
export const readParams = (params: RawParams): Effect.Effect<TokenParams, InvalidRequest> => {
  const values = new Map<string, string>()
  for (const [name, value] of params) {
    if (values.has(name)) return Effect.fail(new InvalidRequest({ description: `parameter ${describableName(name)} was sent more than once` }))
    values.set(name, value)
  }
  return Effect.succeed({ get: (name) => { const v = values.get(name); return v === undefined || v === "" ? null : v } })
}

/**
 * A parameter name echoed in an error description: only the characters RFC 6749 §4.1.2.1 and §5.2 allow there,
 * bounded. Shared by the authorization and token endpoints.
 */
export const describableName = (name: string): string => name.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "?").slice(0, 40)

export const required = (params: TokenParams, name: string): Effect.Effect<string, InvalidRequest> => {
  const value = params.get(name)
  return value === null ? Effect.fail(new InvalidRequest({ description: `${name} is required` })) : Effect.succeed(value)
}
