// Which readers an event is kept for (ports/EventOutbox.ts, OutboxSubscription): one entry per reader that takes its
// kind, and a reader's pass (drainOutbox) hands its handler only those kinds, marking every claimed entry done, also
// one an earlier release wrote for a reader that no longer takes it.
import {
  ApiKeyId, auditSubscription, ClientId, ConnectionId, type DomainEvent, drainOutbox, EventOutbox, mailSubscription,
  UserId, WorkspaceId, withdrawalsSubscription, WriteRequestId
} from "@adgate/core"
import { EventOutboxMemory, memoryOutboxReaders, TransactorMemory } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"

const ws = WorkspaceId.make("ws_1")
const opened: DomainEvent = {
  _tag: "ConnectionOpened", at: 1, connectionId: ConnectionId.make("con_1"), workspaceId: ws, clientId: ClientId.make("apc_1"),
  approverId: UserId.make("usr_1"), scopes: ["tools:read"], surface: "mcp", platforms: "all", writeMode: "wait"
}
const ended: DomainEvent = {
  _tag: "ConnectionEnded", at: 2, connectionId: ConnectionId.make("con_1"), workspaceId: ws, clientId: ClientId.make("apc_1"),
  reason: "disconnected", actorId: null
}
const expired: DomainEvent = { _tag: "WriteExpired", at: 3, requestId: WriteRequestId.make("rwq_1"), workspaceId: ws }
const revoked: DomainEvent = { _tag: "ApiKeyRevoked", at: 4, keyId: ApiKeyId.make("key_1"), workspaceId: ws, actorId: null }

const tagsFor = (reader: string) =>
  Effect.map(Effect.flatMap(EventOutbox, (outbox) => outbox.claim(reader, 100)), (entries) => entries.map((e) => e.event._tag))

describe("the outbox keeps an event for the readers that take its kind", () => {
  it.effect("audit takes every event, mail a connection opened, withdrawals a connection ended or a key revoked", () =>
    Effect.gen(function* () {
      yield* (yield* EventOutbox).append([opened, ended, expired, revoked])
      assert.deepStrictEqual(yield* tagsFor(auditSubscription.name), ["ConnectionOpened", "ConnectionEnded", "WriteExpired", "ApiKeyRevoked"])
      assert.deepStrictEqual(yield* tagsFor(mailSubscription.name), ["ConnectionOpened"])
      assert.deepStrictEqual(yield* tagsFor(withdrawalsSubscription.name), ["ConnectionEnded", "ApiKeyRevoked"])
    }).pipe(Effect.provide(EventOutboxMemory(memoryOutboxReaders))))

  it.effect("a pass hands its handler only the kinds its reader takes and marks every claimed entry done, one of a kind it no longer takes included", () =>
    Effect.gen(function* () {
      // As an earlier release left the outbox: a withdrawals entry for every event.
      yield* (yield* EventOutbox).append([opened, ended, expired])
      const handed: Array<string> = []
      const handle = (entries: ReadonlyArray<{ readonly event: DomainEvent }>) => Effect.sync(() => { for (const e of entries) handed.push(e.event._tag) })
      assert.strictEqual(yield* drainOutbox(withdrawalsSubscription, handle), 3)
      assert.deepStrictEqual(handed, ["ConnectionEnded"])
      assert.deepStrictEqual(yield* tagsFor(withdrawalsSubscription.name), [], "every claimed entry is done")
      // A pass of entries none of which its reader takes does not call the handler at all.
      yield* (yield* EventOutbox).append([expired])
      let called = false
      assert.strictEqual(yield* drainOutbox(withdrawalsSubscription, () => Effect.sync(() => { called = true })), 1)
      assert.isFalse(called)
      assert.deepStrictEqual(yield* tagsFor(withdrawalsSubscription.name), [])
    }).pipe(Effect.provide(Layer.merge(TransactorMemory, EventOutboxMemory([{ name: withdrawalsSubscription.name, takes: "every" }])))))

  it("a handler's switch names only the kinds its reader takes: a case for another kind does not compile", () => {
    // The `@ts-expect-error` line is the test: `tsc --noEmit` fails if it stops being an error. Built, never run.
    void drainOutbox(withdrawalsSubscription, (entries) => Effect.sync(() => {
      for (const { event } of entries) {
        switch (event._tag) {
          case "ConnectionEnded": case "ApiKeyRevoked": break
          // @ts-expect-error the withdrawals reader does not take a ConnectionOpened
          case "ConnectionOpened": break
        }
      }
    }))
  })
})
