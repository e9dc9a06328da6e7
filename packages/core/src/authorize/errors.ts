// Tagged errors of GET /oauth/authorize and the consent page (spec §GET /oauth/authorize, §States: Consent page;
// RFC 6749 §4.1.2.1, checklist A, M and decision 13). They never carry a secret.
import { Schema } from "effect"

/** Answered with an error page on the service itself, never a redirect: no trusted redirect URI exists. */
export class AuthorizeErrorPage extends Schema.TaggedError<AuthorizeErrorPage>()("AuthorizeErrorPage", {
  error: Schema.String,
  description: Schema.String
}) {}

/**
 * Answered by redirecting to the validated redirect URI with error, error_description, state and iss
 * (RFC 6749 §4.1.2.1, RFC 9207). `immediate`: at once for a workspace's own app or a recognised product;
 * otherwise the person first sees the error with a Return link (checklist decision 13).
 */
export class AuthorizeErrorRedirect extends Schema.TaggedError<AuthorizeErrorRedirect>()("AuthorizeErrorRedirect", {
  error: Schema.String,
  description: Schema.String,
  redirectUri: Schema.String,
  state: Schema.NullOr(Schema.String),
  immediate: Schema.Boolean
}) {}

/** The person may not connect this app to this workspace (not a member, a role that cannot connect, another workspace's app). */
export class NotAllowedToConnect extends Schema.TaggedError<NotAllowedToConnect>()("NotAllowedToConnect", {
  reason: Schema.Literals(["not_a_member", "role_cannot_connect", "app_of_another_workspace", "unknown_workspace"])
}) {}

/** No consent page with this id. */
export class ConsentPageNotFound extends Schema.TaggedError<ConsentPageNotFound>()("ConsentPageNotFound", {}) {}

/** The consent page is older than 10 minutes (spec §Limits). */
export class ConsentPageExpired extends Schema.TaggedError<ConsentPageExpired>()("ConsentPageExpired", {}) {}

/** The decision was already taken: each approval is posted once (spec §Authentication 9). */
export class ConsentAlreadyDecided extends Schema.TaggedError<ConsentAlreadyDecided>()("ConsentAlreadyDecided", {}) {}

/** The person switched account or workspace after the page opened: restart from the app (spec §States: Consent page). */
export class ConsentRestartRequired extends Schema.TaggedError<ConsentRestartRequired>()("ConsentRestartRequired", {}) {}

/** The posted CSRF token is not the page's (RFC 6749 §10.12). */
export class CsrfMismatch extends Schema.TaggedError<CsrfMismatch>()("CsrfMismatch", {}) {}

/** The posted choice is not one the page offered or the person may make (tampered or stale form). */
export class InvalidConsentDecision extends Schema.TaggedError<InvalidConsentDecision>()("InvalidConsentDecision", {
  description: Schema.String
}) {}
