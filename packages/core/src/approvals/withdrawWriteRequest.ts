// The requesting app withdraws its own queued write while it still waits (MCP tasks/cancel; spec §States: Write
// request, docs/decisions.md): only the connection or API key that made the request may, and only while pending.
import { Clock, Effect, Option } from "effect"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { requesterOf, transitionWriteRequest } from "./transitionWriteRequest.ts"

export interface WriteRequestWithdrawal {
  readonly id: string
  readonly workspaceId: string
  /** The calling credential: its connection id, else its API key id. */
  readonly requesterId: string
}

export const withdrawWriteRequest = Effect.fn("approvals.withdrawWriteRequest")(function* (input: WriteRequestWithdrawal) {
  const store = yield* WriteRequestStore
  return yield* Effect.gen(function* () {
    const found = yield* store.find(input.id)
    // Another app's request is not found: one app never learns of (or ends) another's.
    if (Option.isNone(found) || found.value.workspaceId !== input.workspaceId || requesterOf(found.value) !== input.requesterId)
      return yield* new WriteRequestNotFound({ requestId: input.id })
    const next = yield* Effect.fromResult(transitionWriteRequest(found.value, { _tag: "Withdraw", requesterId: input.requesterId }, yield* Clock.currentTimeMillis))
    yield* store.save(next)
    return next
  }).pipe(Effect.retry({ while: (error) => error._tag === "Conflict", times: 3 }))
})
