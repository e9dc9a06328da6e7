// The withdrawals reader's work (architecture §The event outbox and its readers; docs/decisions.md, Write requests):
// when a connection ends (any reason) or an API key is revoked, every write it proposed that still waits for a person
// is withdrawn, `rejected` with the ended credential named in its result, so nobody can approve a change proposed by
// an app the workspace stopped trusting. Each withdrawal is one command (compare-and-set, one WriteRequesterEnded
// event → the audit entry), so a request a person decided meanwhile is left as decided.
import { Effect, Option } from "effect"
import { loadReadFirst, runCommand } from "../commands/runCommand.ts"
import type { OutboxEntry, OutboxSubscription, TakenEvent } from "../ports/EventOutbox.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { WriteRequestNotFound } from "./errors.ts"
import { requesterOf, transitionWriteRequest } from "./transitionWriteRequest.ts"
import type { RequesterEnding } from "./WriteRequest.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** Withdraws the workspace's pending requests made by the ended credential; answers how many this call withdrew. */
export const withdrawRequestsOf = Effect.fn("approvals.withdrawRequestsOf")(function* (workspaceId: WorkspaceId, ending: RequesterEnding) {
  const store = yield* WriteRequestStore
  // The workspace's queue is what people decide from, so it stays short; the credential's own are picked from it.
  const pending = (yield* store.listPending(workspaceId)).filter((r) => requesterOf(r) === ending.credentialId)
  const withdrawn = yield* Effect.forEach(pending, (request) =>
    runCommand({
      // Decided on as listed; only a lost race (a person decided meanwhile) reads it again.
      load: loadReadFirst(Option.some(request), store.find(request.id)),
      missing: () => new WriteRequestNotFound({ requestId: request.id }),
      transition: (current, now) => transitionWriteRequest(current, { _tag: "WithdrawForEndedRequester", ending }, now),
      writes: { _tag: "Save", save: store.save }
    }).pipe(
      Effect.as(true),
      // Decided, expired or withdrawn meanwhile (another process, a person): nothing is left to do.
      Effect.catchTags({ WriteRequestNotPending: () => Effect.succeed(false), WriteRequestNotFound: () => Effect.succeed(false) })
    ))
  return withdrawn.filter(Boolean).length
})

/** The withdrawals reader takes the events that end a requester: a connection ended, an API key revoked. */
export const withdrawalsSubscription = {
  name: "withdrawals",
  takes: ["ConnectionEnded", "ApiKeyRevoked"]
} as const satisfies OutboxSubscription

/** The ending an event reports: one case per kind the reader takes, so a case for another kind does not compile. */
const endingOf = (event: TakenEvent<typeof withdrawalsSubscription>): { readonly workspaceId: WorkspaceId; readonly ending: RequesterEnding } => {
  switch (event._tag) {
    case "ConnectionEnded": return { workspaceId: event.workspaceId, ending: { credentialId: event.connectionId, reason: event.reason } }
    case "ApiKeyRevoked": return { workspaceId: event.workspaceId, ending: { credentialId: event.keyId, reason: "key_revoked" } }
  }
}

/** One claimed batch of the withdrawals reader (the events it takes), handled in the unit of work that marks it done. */
export const withdrawForEndedRequesters = Effect.fn("approvals.withdrawForEndedRequesters")(
  function* (entries: ReadonlyArray<OutboxEntry<TakenEvent<typeof withdrawalsSubscription>>>) {
    for (const { event } of entries) {
      const ended = endingOf(event)
      yield* withdrawRequestsOf(ended.workspaceId, ended.ending)
    }
  }
)
