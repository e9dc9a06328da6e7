// A newly registered client of either registered kind (RFC 7591 dynamic registration, a workspace's own app): the
// server chooses the `apc_` id and, for a confidential client, the secret, returned once and kept only as a hash.
// The caller stores it: a dynamic client as it is, a workspace app under its workspace's limit.
import { Effect } from "effect"
import { type Client, ClientId, type TokenEndpointAuthMethod } from "./Client.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface NewRegisteredClient {
  readonly kind: "dynamic" | "workspace_app"
  readonly name: string | null
  readonly redirectUris: ReadonlyArray<string>
  readonly authMethod: TokenEndpointAuthMethod
  readonly workspaceId: WorkspaceId | null
  readonly now: number
  /** The recognised product this registration is (dynamic registrations only), or null. */
  readonly productName?: string | null
}

export const newRegisteredClient = Effect.fnUntraced(function* (input: NewRegisteredClient) {
  const secrets = yield* Secrets
  // RFC 9700 §4.15: the server chooses client_id (apc_…, never an https URL) and the secret; sent values are ignored.
  const clientId = ClientId.make(yield* secrets.generate(Prefix.clientId))
  const clientSecret = input.authMethod === "none" ? null : yield* secrets.generate(Prefix.clientSecret)
  const client: Client = {
    clientId,
    version: 1,
    kind: input.kind,
    name: input.name,
    redirectUris: input.redirectUris,
    authMethod: input.authMethod,
    secretHash: clientSecret === null ? null : yield* secrets.hash(clientSecret),
    workspaceId: input.workspaceId,
    recognised: (input.productName ?? null) !== null,
    productName: input.productName ?? null,
    createdAt: input.now,
    lastTokenAt: null,
    removedAt: null,
    documentHost: null,
    cacheUntil: null
  }
  return { client, clientSecret }
})
