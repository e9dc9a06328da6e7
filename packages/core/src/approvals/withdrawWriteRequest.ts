// The requesting app withdraws its own queued write while it still waits (MCP tasks/cancel; spec §States: Write
// request, docs/decisions.md): a command on the runner; only the connection or API key that made the request may,
// and only while pending.
import { Effect } from "effect"
import { runCommand } from "../commands/runCommand.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { transitionWriteRequest } from "./transitionWriteRequest.ts"
import { findOwnWriteRequest } from "./writeRequestQueries.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"
import type { WriteRequestId } from "./WriteRequest.ts"

export interface WriteRequestWithdrawal {
  readonly id: WriteRequestId
  readonly workspaceId: WorkspaceId
  /** The calling credential: its connection id, else its API key id. */
  readonly requesterId: string
}

export const withdrawWriteRequest = Effect.fn("approvals.withdrawWriteRequest")(function* (input: WriteRequestWithdrawal) {
  const store = yield* WriteRequestStore
  return yield* runCommand({
    // Another app's request is not found: one app never learns of (or ends) another's.
    load: findOwnWriteRequest(input.workspaceId, input.requesterId, input.id),
    missing: () => new WriteRequestNotFound({ requestId: input.id }),
    transition: (request, now) => transitionWriteRequest(request, { _tag: "Withdraw", requesterId: input.requesterId }, now),
    writes: { _tag: "Save", save: store.save }
  })
})
