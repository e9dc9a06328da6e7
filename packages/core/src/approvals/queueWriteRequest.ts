// Queues a tool write for a person (spec §POST /tools/{name} 202, §Write request): a new `rwq_` request, pending,
// bound to the fingerprint of the exact call, due to expire after writeRequestLifetimeMs. Its WriteQueued event, in
// the same unit of work, is what the audit entry and the mail to the requester are made from (the outbox's readers).
import { Clock, Effect, type Schema } from "effect"
import { runCreation } from "../commands/runCommand.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { hashToolCall } from "../tools/hashToolCall.ts"
import { type WaitReason, type WriteRequest, writeRequestLifetimeMs, WriteRequestId } from "./WriteRequest.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ApiKeyId } from "../credentials/records.ts"
import type { ClientId } from "../clients/Client.ts"

export interface WriteRequestInput {
  readonly workspaceId: WorkspaceId
  readonly connectionId: ConnectionId | null
  readonly apiKeyId: ApiKeyId | null
  readonly requestedBy: UserId
  readonly tool: string
  readonly arguments: Schema.JsonObject
  readonly reason: WaitReason
}

/**
 * What the queueing call knew beside the request, for its WriteQueued event (the audit entry and the requester's
 * mail are made from it by the outbox's readers).
 */
export interface QueuedCall {
  /** The app that asked (the connection's client); null for an API key. */
  readonly clientId: ClientId | null
  readonly toolTitle: string
  /** The preview's one line saying what would change; null when it was queued without a preview (no mail then). */
  readonly summary: string | null
}

export const queueWriteRequest = Effect.fn("approvals.queueWriteRequest")(function* (input: WriteRequestInput, call: QueuedCall) {
  const now = yield* Clock.currentTimeMillis
  const request: WriteRequest = {
    ...input,
    id: WriteRequestId.make(yield* (yield* Secrets).generate(Prefix.writeRequest)),
    version: 1,
    argumentsHash: yield* hashToolCall(input.tool, input.arguments),
    status: "pending_approval",
    providerStatus: null,
    result: null,
    attempt: 0,
    leaseUntil: null,
    decidedBy: null,
    decidedAt: null,
    createdAt: now,
    expiresAt: now + writeRequestLifetimeMs,
    updatedAt: now
  }
  return yield* runCreation((yield* WriteRequestStore).insert(request), request, [{
    _tag: "WriteQueued", at: now, requestId: request.id, workspaceId: request.workspaceId, requestedBy: request.requestedBy,
    tool: request.tool, toolTitle: call.toolTitle, clientId: call.clientId, connectionId: request.connectionId,
    apiKeyId: request.apiKeyId, reason: request.reason, summary: call.summary, expiresAt: request.expiresAt
  }])
})
