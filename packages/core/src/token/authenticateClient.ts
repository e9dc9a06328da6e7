// Client authentication at the token and revocation endpoints (spec §POST /oauth/token "Client authentication",
// RFC 6749 §2.3.1, OAuth 2.1 §2.4; checklist D 53-58, 62): the registered method exactly, one method per request.
import { Effect, Option } from "effect"
import { ClientAuthenticationFailed, InvalidRequest } from "./errors.ts"
import type { TokenParams } from "./TokenParams.ts"
import { findClientForToken } from "../clients/resolveClient.ts"
import { constantTimeEqual } from "../credentials/constantTimeEqual.ts"
import { Secrets } from "../ports/Secrets.ts"

/** The decoded `Authorization: Basic` header (each part form-decoded by the adapter), none, or undecodable. */
export type BasicCredentials = { readonly clientId: string; readonly clientSecret: string } | null | "malformed"

export const authenticateClient = Effect.fn("token.authenticateClient")(function* (params: TokenParams, basic: BasicCredentials) {
  const usedBasic = basic !== null
  const fail = (reason: ClientAuthenticationFailed["reason"]) => new ClientAuthenticationFailed({ reason, usedBasic })
  if (basic === "malformed") return yield* fail("malformed_basic")
  const bodyId = params.get("client_id")
  const bodySecret = params.get("client_secret")
  // OAuth 2.1 §2.4: one authentication method per request.
  if (basic !== null && bodySecret !== null)
    return yield* new InvalidRequest({ description: "client credentials sent both in the Authorization header and in the body" })
  // Checklist 57: two client identities in one request.
  if (basic !== null && bodyId !== null && bodyId !== basic.clientId)
    return yield* new InvalidRequest({ description: "client_id in the body differs from the Authorization header" })
  const clientId = basic?.clientId ?? bodyId
  if (clientId === null || clientId === "") return yield* new InvalidRequest({ description: "client_id is required" })
  // Store only: the token endpoint never fetches a metadata document (spec §Authentication 4).
  const found = yield* findClientForToken(clientId)
  if (Option.isNone(found)) return yield* fail("unknown_client")
  const client = found.value
  const secret = basic?.clientSecret ?? bodySecret
  switch (client.authMethod) {
    case "none":
      // Spec §OAuth errors: a secret sent by a public client is invalid_client.
      if (secret !== null) return yield* fail("secret_from_public_client")
      return client
    case "client_secret_basic":
      if (bodySecret !== null) return yield* fail("wrong_method")
      break
    case "client_secret_post":
      if (basic !== null) return yield* fail("wrong_method")
      break
  }
  // A confidential client is never downgraded to public (checklist 54).
  if (secret === null || secret === "") return yield* fail("secret_missing")
  // Checklist 62: compare the stored hash with the hash of what was sent, in constant time.
  const presented = yield* (yield* Secrets).hash(secret)
  if (client.secretHash === null || !constantTimeEqual(presented, client.secretHash)) return yield* fail("secret_wrong")
  return client
})
