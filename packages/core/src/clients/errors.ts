// Tagged errors of client registration, resolution and removal (spec §POST /oauth/register, §Authentication 3–4,
// §Resources: OAuth client). They carry what a caller needs, never a secret.
import { Schema } from "effect"
import { ClientId } from "./Client.ts"

/** One redirect URI breaks the rules of spec §Authentication 3 (RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §2.1). */
export class RedirectUriRejected extends Schema.TaggedError<RedirectUriRejected>()("RedirectUriRejected", {
  reason: Schema.String
}) {}

/** Registration: redirect_uris missing, not an array, empty, more than 10, or one breaks the rules (RFC 7591 §3.2.2). */
export class InvalidRedirectUri extends Schema.TaggedError<InvalidRedirectUri>()("InvalidRedirectUri", {
  description: Schema.String
}) {}

/**
 * A workspace app's redirect URIs: one or more break the rules of spec §Authentication 3. Each problem names the
 * URI's place in the list (0-based) and why, so a form can point at the line.
 */
export class RedirectUrisRejected extends Schema.TaggedError<RedirectUrisRejected>()("RedirectUrisRejected", {
  problems: Schema.Array(Schema.Struct({ index: Schema.Int, reason: Schema.String }))
}) {}

/** Registration: not a JSON object, an unsupported capability or a known field of the wrong type (RFC 7591 §3.2.2). */
export class InvalidClientMetadata extends Schema.TaggedError<InvalidClientMetadata>()("InvalidClientMetadata", {
  description: Schema.String
}) {}

/** Too many registrations from one address, or the daily registration pause: 429 with Retry-After. */
export class RegistrationRateLimited extends Schema.TaggedError<RegistrationRateLimited>()("RegistrationRateLimited", {
  retryAfterSeconds: Schema.Number
}) {}

/** A workspace may register up to 20 apps (spec §Resources: OAuth client). */
export class TooManyApps extends Schema.TaggedError<TooManyApps>()("TooManyApps", {
  limit: Schema.Number
}) {}

/** Only a workspace admin may register an app for the workspace (docs/decisions.md, Pages). */
export class NotAllowed extends Schema.TaggedError<NotAllowed>()("NotAllowed", {
  reason: Schema.String
}) {}

/** A client_id that is not a usable client: unknown, removed, or a metadata document that failed (error page). */
export class UnknownClient extends Schema.TaggedError<UnknownClient>()("UnknownClient", {
  clientId: ClientId,
  reason: Schema.String
}) {}

/** A client ID metadata document URL that breaks the rules of spec §Authentication 4 (refused before any fetch). */
export class InvalidMetadataDocumentUrl extends Schema.TaggedError<InvalidMetadataDocumentUrl>()("InvalidMetadataDocumentUrl", {
  reason: Schema.String
}) {}

/** A fetched client ID metadata document that is not acceptable (CIMD §4.1; checklist I). */
export class InvalidMetadataDocument extends Schema.TaggedError<InvalidMetadataDocument>()("InvalidMetadataDocument", {
  reason: Schema.String
}) {}

/** No app of this workspace with this client_id (removing a workspace app). */
export class WorkspaceAppNotFound extends Schema.TaggedError<WorkspaceAppNotFound>()("WorkspaceAppNotFound", {}) {}
