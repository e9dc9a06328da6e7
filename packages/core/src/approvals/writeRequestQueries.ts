// Reading write requests: GET /requests/{id} (spec §REST API: the decision on a queued write) and the pending queue.
// A request of another workspace is "not found", exactly like one that does not exist (spec §REST status codes 404).
import { Effect, Option } from "effect"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { WriteRequestId } from "./WriteRequest.ts"

export const findWriteRequest = Effect.fn("approvals.findWriteRequest")(function* (workspaceId: WorkspaceId, requestId: WriteRequestId) {
  const found = yield* (yield* WriteRequestStore).find(requestId)
  if (Option.isNone(found) || found.value.workspaceId !== workspaceId) return yield* new WriteRequestNotFound({ requestId })
  return found.value
})

/** The workspace's requests waiting for a person, oldest first (CLI `requests list`; the Write approvals page). */
export const listPendingWriteRequests = Effect.fn("approvals.listPendingWriteRequests")(function* (workspaceId: WorkspaceId) {
  return yield* (yield* WriteRequestStore).listPending(workspaceId)
})
