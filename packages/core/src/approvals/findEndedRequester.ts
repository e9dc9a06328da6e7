// Whether the credential that asked for a write is still live (docs/decisions.md, Write requests): a write proposed
// by a connection the workspace ended, or by an API key it revoked, is never approved nor run. Read when a person
// approves and again right before an approved write runs; the withdrawals reader covers the pending ones.
import { Clock, Effect, Option } from "effect"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import { ConnectionStore } from "../ports/ConnectionStore.ts"
import type { RequesterEndReason, RequesterEnding, WriteRequest } from "./WriteRequest.ts"

const ended = (credentialId: string, reason: RequesterEndReason): RequesterEnding | null => ({ credentialId, reason })
const live: RequesterEnding | null = null

/**
 * Null while the requesting connection is active (and within its 365 days) or its API key unrevoked; otherwise the
 * credential and why it ended. A credential that cannot be found, or belongs to another workspace, counts as ended
 * (fail closed), as for a task's credential (tasks/principalOfTask.ts).
 */
export const findEndedRequester = Effect.fn("approvals.findEndedRequester")(function* (request: WriteRequest) {
  if (request.connectionId !== null) {
    const credentialId = request.connectionId
    const found = yield* (yield* ConnectionStore).find(credentialId)
    if (Option.isNone(found) || found.value.workspaceId !== request.workspaceId)
      return ended(credentialId, "credential_unknown")
    const connection = found.value
    if (connection.status === "ended") return ended(credentialId, connection.endedReason ?? "disconnected")
    // Past its 365 days it no longer authenticates, even before housekeeping records the ending.
    if ((yield* Clock.currentTimeMillis) >= connection.expiresAt) return ended(credentialId, "expired")
    return live
  }
  const credentialId = request.apiKeyId ?? ""
  const key = request.apiKeyId === null ? Option.none() : yield* (yield* ApiKeyStore).find(request.apiKeyId)
  if (Option.isNone(key) || key.value.workspaceId !== request.workspaceId)
    return ended(credentialId, "credential_unknown")
  if (key.value.revokedAt !== null) return ended(credentialId, "key_revoked")
  return live
})
