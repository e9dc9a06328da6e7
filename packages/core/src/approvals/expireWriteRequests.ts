// Spec §States: Write request, row "pending_approval, no answer → expired": one pass over every workspace at the
// clock's time, with one WriteExpired per expired request (spec §Events), the expiry and its events in one unit of
// work. The store expires each request once (see WriteRequestStore). The SQL server's housekeeping does the same in
// one statement (adapters-sql runHousekeeping).
import { Clock, Effect, Option } from "effect"
import type { DomainEvent } from "../commands/DomainEvent.ts"
import { EventOutbox } from "../ports/EventOutbox.ts"
import { Observations } from "../ports/Observations.ts"
import { Transactor } from "../ports/Transactor.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"

export const expireWriteRequests = Effect.fn("approvals.expireWriteRequests")(function* () {
  const store = yield* WriteRequestStore
  const outbox = yield* EventOutbox
  const now = yield* Clock.currentTimeMillis
  const ids = yield* (yield* Transactor).atomically(Effect.gen(function* () {
    const ids = yield* store.expireDue(now)
    const events: Array<DomainEvent> = []
    for (const id of ids) {
      const request = yield* store.find(id)
      if (Option.isSome(request)) events.push({ _tag: "WriteExpired", at: now, requestId: id, workspaceId: request.value.workspaceId })
    }
    if (events.length > 0) yield* outbox.append(events)
    return ids
  }))
  const observe = yield* Observations
  for (let i = 0; i < ids.length; i++) observe.event("WriteExpired")
  return ids
})
