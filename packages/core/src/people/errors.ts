// Errors of people: sign-in, sessions, the workspace switch and adding people (docs/decisions.md, People). They
// carry reasons only; each adapter (pages, CLI) says them in its own words.
import { Schema } from "effect"
import { WorkspaceId } from "../workspaces/Workspace.ts"

/** The address and password do not match a person: one error for an unknown address and a wrong password. */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", {}) {}

/** Too many failed sign-ins from this address or for this account in the current window; nothing was checked. */
export class SignInThrottled extends Schema.TaggedError<SignInThrottled>()("SignInThrottled", {
  retryAfterSeconds: Schema.Number
}) {}

/** The person asked to work in a workspace they are not a member of. */
export class NotAMember extends Schema.TaggedError<NotAMember>()("NotAMember", {
  workspaceId: WorkspaceId
}) {}

/** A person cannot be added as given: the address is not an e-mail address (a refused password is PasswordRefused). */
export class UserInvalid extends Schema.TaggedError<UserInvalid>()("UserInvalid", {
  reason: Schema.Literals(["email_malformed"]),
  email: Schema.String
}) {}

/** Another person already has this e-mail address (addresses are compared case-insensitively). */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", {
  email: Schema.String
}) {}

/** Nobody has this e-mail address. */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", {
  email: Schema.String
}) {}

/**
 * A password is not accepted, for a person added, set or changed: shorter than passwordMinLength, longer than
 * passwordMaxLength (passwords.ts), the two entries differ, or (changing one's own) the current password is not
 * right. Nothing changed.
 */
export class PasswordRefused extends Schema.TaggedError<PasswordRefused>()("PasswordRefused", {
  reason: Schema.Literals(["too_short", "too_long", "not_repeated", "wrong_current_password"])
}) {}

/** Too many wrong current passwords for this account from this address: nothing was checked (as sign-in). */
export class PasswordChangeThrottled extends Schema.TaggedError<PasswordChangeThrottled>()("PasswordChangeThrottled", {
  retryAfterSeconds: Schema.Number
}) {}
