// Dynamic client registration, POST /oauth/register (RFC 7591 §3; spec §POST /oauth/register, checklist H).
// Registering grants nothing; the server chooses the identifiers; only the secret's hash is stored.
import { Clock, Effect, Result } from "effect"
import type { Client, TokenEndpointAuthMethod } from "./Client.ts"
import { InvalidClientMetadata, InvalidRedirectUri, RegistrationRateLimited } from "./errors.ts"
import { checkGrantAndResponseTypes, cleanClientName, supportedGrantTypes, supportedResponseTypes } from "./registrationMetadata.ts"
import { validateRedirectUri } from "./redirectUri.ts"
import { hitLimit } from "../limits/RateLimits.ts"
import { newRegisteredClient } from "./newRegisteredClient.ts"
import { ClientStore } from "../ports/Stores.ts"

export const maxRedirectUris = 10

const authMethods: ReadonlyArray<TokenEndpointAuthMethod> = ["none", "client_secret_basic", "client_secret_post"]

export interface RegisterClientInput {
  readonly body: unknown
  readonly remoteAddress: string
  readonly serviceOrigin: string
}

export interface Registration {
  readonly client: Client
  /** Shown once in the 201 answer, never stored. */
  readonly clientSecret: string | null
  /** The 201 body (RFC 7591 §3.2.1). */
  readonly response: Record<string, unknown>
}

/** redirect_uris: required, an array of 1 to 10 URIs, each following spec §Authentication 3. */
export const checkRedirectUris = (value: unknown, serviceOrigin: string): Result.Result<ReadonlyArray<string>, InvalidRedirectUri> => {
  const fail = (description: string) => Result.fail(new InvalidRedirectUri({ description }))
  if (value === undefined) return fail("redirect_uris is required")
  if (!Array.isArray(value)) return fail("redirect_uris must be an array")
  if (value.length < 1 || value.length > maxRedirectUris) return fail(`redirect_uris must list 1 to ${maxRedirectUris} URIs`)
  for (const [i, uri] of value.entries()) {
    if (typeof uri !== "string") return fail(`redirect_uris[${i}] must be a string`)
    const checked = validateRedirectUri(uri, serviceOrigin)
    if (Result.isFailure(checked)) return fail(`redirect_uris[${i}]: ${checked.failure.reason}`)
  }
  return Result.succeed(value as ReadonlyArray<string>)
}

const readMetadata = (body: Record<string, unknown>) => {
  const fail = (description: string) => Result.fail(new InvalidClientMetadata({ description }))
  const method = body["token_endpoint_auth_method"] ?? "none"
  if (typeof method !== "string") return fail("token_endpoint_auth_method must be a string")
  const authMethod = authMethods.find((m) => m === method)
  if (authMethod === undefined) return fail("token_endpoint_auth_method must be none, client_secret_basic or client_secret_post")
  const types = checkGrantAndResponseTypes(body)
  if (types !== null) return fail(types)
  const name = cleanClientName(body["client_name"])
  if (Result.isFailure(name)) return fail(name.failure)
  return Result.succeed({ authMethod, name: name.success })
}

export const registerClient = Effect.fn("clients.registerClient")(function* (input: RegisterClientInput) {
  const now = yield* Clock.currentTimeMillis

  // RFC 7591 §3.1 allows rate limiting. Every attempt counts against its address, so that garbage is throttled too.
  const perAddress = yield* hitLimit("registrations_per_address", input.remoteAddress, now)
  if (!perAddress.allowed) return yield* new RegistrationRateLimited({ retryAfterSeconds: perAddress.retryAfterSeconds })

  const body = input.body
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return yield* new InvalidClientMetadata({ description: "the body must be a JSON object" })
  const fields = body as Record<string, unknown>
  const redirectUris = yield* Effect.fromResult(checkRedirectUris(fields["redirect_uris"], input.serviceOrigin))
  const metadata = yield* Effect.fromResult(readMetadata(fields))

  // Only valid registrations count towards the daily pause.
  const daily = yield* hitLimit("registrations_per_day", "", now)
  if (!daily.allowed) return yield* new RegistrationRateLimited({ retryAfterSeconds: daily.retryAfterSeconds })

  const { client, clientSecret } = yield* newRegisteredClient({
    kind: "dynamic", name: metadata.name, redirectUris, authMethod: metadata.authMethod, workspaceId: null, now
  })
  yield* (yield* ClientStore).insert(client)
  const clientId = client.clientId

  const response: Record<string, unknown> = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    ...(metadata.name === null ? {} : { client_name: metadata.name }),
    redirect_uris: [...redirectUris],
    token_endpoint_auth_method: metadata.authMethod,
    grant_types: [...supportedGrantTypes],
    response_types: [...supportedResponseTypes],
    ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 })
  }
  return { client, clientSecret, response } satisfies Registration
})
