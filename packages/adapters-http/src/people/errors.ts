// Errors of the people module (sign-in, sessions, workspace switching).
import { Schema } from "effect"

/** The person asked to work in a workspace they are not a member of. */
export class NotAMember extends Schema.TaggedError<NotAMember>()("NotAMember", {
  workspaceId: Schema.String
}) {}
