// Client authentication at the token and revocation endpoints (spec §POST /oauth/token "Client authentication",
// RFC 6749 §2.3.1, OAuth 2.1 §2.4; checklist D 53-58, 62): one method per request; a dynamic registration keeps the
// method it registered, a workspace Server app may use either Basic or the body ("either … or …, never both").
import { Effect, Option } from "effect"
import { ClientAuthenticationFailed, InvalidRequest } from "./errors.ts"
import type { TokenParams } from "./TokenParams.ts"
import { type Client, ClientId } from "../clients/Client.ts"
import { findClientForToken } from "../clients/resolveClient.ts"
import { constantTimeEqual } from "../credentials/constantTimeEqual.ts"
import { Secrets } from "../ports/Secrets.ts"

/** The decoded `Authorization: Basic` header (each part form-decoded by the adapter), none, or undecodable. */
export type BasicCredentials = { readonly clientId: string; readonly clientSecret: string } | null | "malformed"

/**
 * Whether a confidential client may send its secret this way. The spec lets a workspace Server app send either;
 * a dynamically registered client said which one it uses (RFC 7591 §2), and only that one is accepted.
 */
export const acceptsMethod = (client: Client, method: "client_secret_basic" | "client_secret_post"): boolean =>
  client.authMethod === method || (client.kind === "workspace_app" && client.authMethod !== "none")

/**
 * The client id authenticateClient will look up: null when the request fails one of the checks made before the look-up
 * (undecodable Basic, secrets in both places, two client ids, none), so that a caller reading the client early
 * (with its grant) never reads for a request those checks refuse, and a refusal's answer does not depend on the store.
 */
export const claimedClientId = (params: TokenParams, basic: BasicCredentials): ClientId | null => {
  if (basic === "malformed") return null
  const bodyId = params.get("client_id")
  const basicSecret = basic === null || basic.clientSecret === "" ? null : basic.clientSecret
  if (basicSecret !== null && params.get("client_secret") !== null) return null
  if (basic !== null && bodyId !== null && bodyId !== basic.clientId) return null
  const clientId = basic?.clientId ?? bodyId
  return clientId === null || clientId === "" ? null : ClientId.make(clientId)
}

/**
 * `preread`: the client the caller already read by `claimedClientId` together with its grant (GrantReader, one
 * statement), as ClientStore.find answered it; without it the client is read here.
 */
export const authenticateClient = Effect.fn("token.authenticateClient")(function* (
  params: TokenParams,
  basic: BasicCredentials,
  preread?: { readonly clientId: ClientId; readonly found: Option.Option<Client> }
) {
  const usedBasic = basic !== null
  const fail = (reason: ClientAuthenticationFailed["reason"]) => new ClientAuthenticationFailed({ reason, usedBasic })
  if (basic === "malformed") return yield* fail("malformed_basic")
  const bodyId = params.get("client_id")
  const bodySecret = params.get("client_secret")
  // An empty Basic password is no secret, as an empty body client_secret is (TokenParams): a public client that
  // sends `Basic base64(client_id:)` is a public client sending none (RFC 6749 §2.3.1 encodes an absent secret so).
  const basicSecret = basic === null || basic.clientSecret === "" ? null : basic.clientSecret
  // OAuth 2.1 §2.4, spec §POST /oauth/token: one authentication method per request.
  if (basicSecret !== null && bodySecret !== null)
    return yield* new InvalidRequest({ description: "client credentials sent both in the Authorization header and in the body" })
  // Checklist 57: two client identities in one request.
  if (basic !== null && bodyId !== null && bodyId !== basic.clientId)
    return yield* new InvalidRequest({ description: "client_id in the body differs from the Authorization header" })
  const claimed = basic?.clientId ?? bodyId
  if (claimed === null || claimed === "") return yield* new InvalidRequest({ description: "client_id is required" })
  // Where the token request's client id enters: from here on it is a ClientId.
  const clientId = ClientId.make(claimed)
  // Store only: the token endpoint never fetches a metadata document (spec §Authentication 4).
  const found = preread !== undefined && preread.clientId === clientId
    ? Option.filter(preread.found, (c) => c.removedAt === null)
    : yield* findClientForToken(clientId)
  if (Option.isNone(found)) return yield* fail("unknown_client")
  const client = found.value
  const secret = basicSecret ?? bodySecret
  if (client.authMethod === "none") {
    // Spec §OAuth errors: a secret sent by a public client is invalid_client.
    if (secret !== null) return yield* fail("secret_from_public_client")
    return client
  }
  // A confidential client is never downgraded to public (checklist 54).
  if (secret === null) return yield* fail("secret_missing")
  if (!acceptsMethod(client, basicSecret !== null ? "client_secret_basic" : "client_secret_post")) return yield* fail("wrong_method")
  // Checklist 62: compare the stored hash with the hash of what was sent, in constant time.
  const presented = yield* (yield* Secrets).hash(secret)
  if (client.secretHash === null || !constantTimeEqual(presented, client.secretHash)) return yield* fail("secret_wrong")
  return client
})
