// An OAuth client of any of the three kinds (spec §Resources: OAuth client, Client ID Metadata Document).
import { Schema } from "effect"
import { SecretHash } from "../ports/Secrets.ts"
import { WorkspaceId } from "../workspaces/Workspace.ts"

export const ClientKind = Schema.Literals(["workspace_app", "dynamic", "metadata_document"])
export type ClientKind = typeof ClientKind.Type

export const TokenEndpointAuthMethod = Schema.Literals(["none", "client_secret_basic", "client_secret_post"])
export type TokenEndpointAuthMethod = typeof TokenEndpointAuthMethod.Type

/**
 * An OAuth client's id: `apc_…` for workspace apps and dynamic registrations, the document's https URL for
 * metadata-document clients. Branded where it enters (generated at registration, read from an authorization or token
 * request, decoded from a row): a connection's or a workspace's id cannot be passed for it.
 */
export const ClientId = Schema.String.pipe(Schema.brand("ClientId"))
export type ClientId = typeof ClientId.Type

export const Client = Schema.Struct({
  clientId: ClientId,
  version: Schema.Int,
  kind: ClientKind,
  /** Self-given name; shown in quotes as an Unverified app unless `recognised`. */
  name: Schema.NullOr(Schema.String),
  redirectUris: Schema.Array(Schema.String),
  authMethod: TokenEndpointAuthMethod,
  /** SHA-256 of the client secret; only confidential clients have one. */
  secretHash: Schema.NullOr(SecretHash),
  /** The registering workspace of a workspace app: only its members may authorize it. */
  workspaceId: Schema.NullOr(WorkspaceId),
  /** A recognised (verified) product: errors redirect at once, the consent page says verified. */
  recognised: Schema.Boolean,
  /**
   * The recognised product's own name (recognisedProducts.ts), shown instead of the self-given `name`; null or absent
   * for every other client. Set where the client is registered or its metadata document read.
   */
  productName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  createdAt: Schema.Number,
  /** When a token was last issued to this client; drives forgetting unused registrations. */
  lastTokenAt: Schema.NullOr(Schema.Number),
  /** Removed workspace apps stay as rows so that their connections can be shown as ended. */
  removedAt: Schema.NullOr(Schema.Number),
  /** Metadata-document clients: the host serving the document, and until when the fetched copy may be used. */
  documentHost: Schema.NullOr(Schema.String),
  cacheUntil: Schema.NullOr(Schema.Number)
})
export type Client = typeof Client.Type
