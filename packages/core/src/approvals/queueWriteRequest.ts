// Queues a tool write for a person (spec §POST /tools/{name} 202, §Write request): a new `rwq_` request, pending,
// bound to the fingerprint of the exact call, due to expire after writeRequestLifetimeMs.
import { Clock, Effect, type Schema } from "effect"
import { runCreation } from "../commands/runCommand.ts"
import { Prefix, Secrets } from "../ports/Secrets.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { hashToolCall } from "../tools/hashToolCall.ts"
import { type WaitReason, type WriteRequest, writeRequestLifetimeMs, WriteRequestId } from "./WriteRequest.ts"
import type { WorkspaceId, UserId } from "../workspaces/Workspace.ts"
import type { ConnectionId } from "../connections/Connection.ts"
import type { ApiKeyId } from "../credentials/records.ts"

export interface WriteRequestInput {
  readonly workspaceId: WorkspaceId
  readonly connectionId: ConnectionId | null
  readonly apiKeyId: ApiKeyId | null
  readonly requestedBy: UserId
  readonly tool: string
  readonly arguments: Schema.JsonObject
  readonly reason: WaitReason
}

export const queueWriteRequest = Effect.fn("approvals.queueWriteRequest")(function* (input: WriteRequestInput) {
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
    _tag: "WriteQueued", at: now, requestId: request.id, workspaceId: request.workspaceId, requestedBy: request.requestedBy, tool: request.tool
  }])
})
