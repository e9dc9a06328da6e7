// Tagged errors of the authorization code exchange (spec §States: Authorization code, §OAuth errors; RFC 6749 §5.2).
import { Schema } from "effect"
import { ConnectionId } from "../connections/Connection.ts"

/** No code with this value exists (or a token of another kind was sent as `code`). */
export class CodeNotFound extends Schema.TaggedError<CodeNotFound>()("CodeNotFound", {}) {}

/**
 * The code's client was removed (or forgotten by housekeeping) before the exchange's write: nothing was written and the
 * code is left as it was. The token endpoint answers it as it answers any request after the removal: invalid_client.
 */
export class ClientGone extends Schema.TaggedError<ClientGone>()("ClientGone", {}) {}

/** The code outlived its 10 minutes. */
export class CodeExpired extends Schema.TaggedError<CodeExpired>()("CodeExpired", {}) {}

/** The code was already exchanged; the connection that exchange made is ended (RFC 6749 §4.1.2). */
export class CodeReused extends Schema.TaggedError<CodeReused>()("CodeReused", {
  connectionId: Schema.NullOr(ConnectionId)
}) {}

/** Five failed exchanges killed the code (checklist decision 43). */
export class CodeExhausted extends Schema.TaggedError<CodeExhausted>()("CodeExhausted", {}) {}

/** The code was issued to another client, or redirect_uri is missing or differs (RFC 6749 §4.1.3). */
export class CodeMismatch extends Schema.TaggedError<CodeMismatch>()("CodeMismatch", {
  field: Schema.Literals(["client_id", "redirect_uri"])
}) {}

/** S256(code_verifier) differs from the code_challenge (RFC 7636 §4.6). */
export class PkceMismatch extends Schema.TaggedError<PkceMismatch>()("PkceMismatch", {}) {}

/** code_verifier is not 43 to 128 characters of [A-Za-z0-9-._~] (RFC 7636 §4.1): invalid_request. */
export class VerifierMalformed extends Schema.TaggedError<VerifierMalformed>()("VerifierMalformed", {}) {}

/** The `resource` at the token endpoint names another surface than the one authorized (RFC 8707 §2.2). */
export class ResourceMismatch extends Schema.TaggedError<ResourceMismatch>()("ResourceMismatch", {}) {}

export type CodeRefusal = CodeExpired | CodeReused | CodeExhausted | CodeMismatch | PkceMismatch | ResourceMismatch
