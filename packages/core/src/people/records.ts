// People who sign in to the service's own pages: their password hash and their browser sessions.
import { Schema } from "effect"
import { SecretHash } from "../ports/Secrets.ts"
import { WorkspaceId, UserId } from "../workspaces/Workspace.ts"

/** A signed-in browser session; found by the SHA-256 of the cookie value. */
export const Session = Schema.Struct({
  hash: SecretHash,
  userId: UserId,
  /** The workspace the person is working in (switchable). */
  workspaceId: Schema.NullOr(WorkspaceId),
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  revokedAt: Schema.NullOr(Schema.Number)
})
export type Session = typeof Session.Type
