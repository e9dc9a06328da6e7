// Reading write requests: GET /requests/{id} (spec §REST API: the decision on a queued write) and the pending queue.
// A request of another workspace is "not found", exactly like one that does not exist (spec §REST status codes 404).
import { Effect, Option } from "effect"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { requesterOf } from "./transitionWriteRequest.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { WriteRequestId } from "./WriteRequest.ts"

export const findWriteRequest = Effect.fn("approvals.findWriteRequest")(function* (workspaceId: WorkspaceId, requestId: WriteRequestId) {
  const found = yield* (yield* WriteRequestStore).find(requestId)
  if (Option.isNone(found) || found.value.workspaceId !== workspaceId) return yield* new WriteRequestNotFound({ requestId })
  return found.value
})

/**
 * The request if the credential `requesterId` (its connection id, else its API key id) made it in `workspaceId`, else
 * none: one app never learns of (or ends) another's (MCP tasks; withdrawWriteRequest).
 */
export const findOwnWriteRequest = (workspaceId: WorkspaceId, requesterId: string, requestId: WriteRequestId) =>
  Effect.flatMap(WriteRequestStore, (store) => store.find(requestId)).pipe(
    Effect.map(Option.filter((r) => r.workspaceId === workspaceId && requesterOf(r) === requesterId)))

/** The workspace's requests waiting for a person, oldest first (CLI `requests list`; the Write approvals page). */
export const listPendingWriteRequests = Effect.fn("approvals.listPendingWriteRequests")(function* (workspaceId: WorkspaceId) {
  return yield* (yield* WriteRequestStore).listPending(workspaceId)
})
