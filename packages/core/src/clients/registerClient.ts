// Dynamic client registration, POST /oauth/register (RFC 7591 §3; spec §POST /oauth/register, checklist H).
// Registering grants nothing; the server chooses the identifiers; only the secret's hash is stored.
import { Clock, Effect, Result } from "effect"
import type { Client } from "./Client.ts"
import { decodeClientMetadata, cleanName, supportedGrantTypes, supportedResponseTypes } from "./ClientMetadata.ts"
import { InvalidClientMetadata, InvalidRedirectUri, RegistrationRateLimited } from "./errors.ts"
import { hitLimit } from "../limits/RateLimits.ts"
import { newRegisteredClient } from "./newRegisteredClient.ts"
import { ClientStore } from "../ports/ClientStore.ts"
import { runCreation } from "../commands/runCommand.ts"
import { exemptRedirectUris, RecognisedProducts, recogniseClient } from "./recognisedProducts.ts"

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

export const registerClient = Effect.fn("clients.registerClient")(function* (input: RegisterClientInput) {
  const now = yield* Clock.currentTimeMillis

  // RFC 7591 §3.1 allows rate limiting. Every attempt counts against its address, so that garbage is throttled too.
  const perAddress = yield* hitLimit("registrations_per_address", input.remoteAddress, now)
  if (!perAddress.allowed) return yield* new RegistrationRateLimited({ retryAfterSeconds: perAddress.retryAfterSeconds })

  // RFC 7591 §3.2.2: a problem with redirect_uris is invalid_redirect_uri, any other invalid_client_metadata. A
  // recognised product's exact set may carry its own app-scheme URI (docs/decisions.md, Cursor's redirect URI).
  const products = yield* RecognisedProducts
  const exempt = exemptRedirectUris(products, input.body)
  const metadata = yield* Effect.fromResult(Result.mapError(decodeClientMetadata(input.body, input.serviceOrigin, exempt), (problem) =>
    problem.field === "redirect_uris"
      ? new InvalidRedirectUri({ description: problem.description })
      : new InvalidClientMetadata({ description: problem.field === "" ? "the body must be a JSON object" : problem.description })))
  const name = cleanName(metadata.client_name)
  const authMethod = metadata.token_endpoint_auth_method ?? "none"
  const redirectUris = metadata.redirect_uris

  // Only valid registrations count towards the daily pause.
  const daily = yield* hitLimit("registrations_per_day", "", now)
  if (!daily.allowed) return yield* new RegistrationRateLimited({ retryAfterSeconds: daily.retryAfterSeconds })

  const product = recogniseClient(products, { kind: "dynamic", clientId: "", redirectUris })
  const { client, clientSecret } = yield* newRegisteredClient({
    kind: "dynamic", name, redirectUris, authMethod, workspaceId: null, now, productName: product?.name ?? null
  })
  // A creation without an event: a dynamic registration belongs to no workspace, so no audit log is its home
  // (docs/decisions.md, Client registration events); the insert alone, as before.
  yield* runCreation((yield* ClientStore).insert(client), client, [])
  const clientId = client.clientId

  const response: Record<string, unknown> = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    ...(name === null ? {} : { client_name: name }),
    redirect_uris: [...redirectUris],
    token_endpoint_auth_method: authMethod,
    // RFC 7591 §3.2.1: the grant and response types the client asked for, all supported once decoded; the code
    // flow's when it named none.
    grant_types: [...(metadata.grant_types ?? supportedGrantTypes)],
    response_types: [...(metadata.response_types ?? supportedResponseTypes)],
    ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 })
  }
  return { client, clientSecret, response } satisfies Registration
})
