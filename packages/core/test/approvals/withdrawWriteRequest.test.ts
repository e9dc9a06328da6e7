// The requesting app withdraws its own queued write while it still waits (docs/decisions.md, Write requests: MCP
// tasks/cancel): it ends rejected, decided by the requesting credential (isWithdrawn); only that credential may, and
// another app's (or another workspace's) request is "not found", as findOwnWriteRequest answers it.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  ApiKeyId,
  ConnectionId,
  decideWriteRequest,
  findOwnWriteRequest,
  isWithdrawn,
  withdrawWriteRequest,
  WorkspaceId,
  type WriteRequestInput
} from "@adgate/core"
import { queueWithoutCall } from "@adgate/core/testing"
import { findRequest, inWorld, people, ws } from "./world.ts"

const con1 = ConnectionId.make("con_1")
const byConnection: WriteRequestInput = {
  workspaceId: ws, connectionId: con1, apiKeyId: null, requestedBy: people.editor, tool: "meta__pause_campaign",
  arguments: { campaignId: "c1" }, reason: "approval"
}

describe("withdrawWriteRequest (the app's own withdrawal)", () => {
  it.effect("the credential that asked withdraws its pending request: rejected, decided by that credential, a withdrawal", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(byConnection)
    const withdrawn = yield* withdrawWriteRequest({ id: request.id, workspaceId: ws, requesterId: con1 })
    assert.deepInclude(withdrawn, { status: "rejected", decidedBy: con1 })
    assert.isTrue(isWithdrawn(yield* findRequest(request.id)))
    // Only while pending: a second withdrawal is refused.
    assert.strictEqual((yield* Effect.flip(withdrawWriteRequest({ id: request.id, workspaceId: ws, requesterId: con1 })))._tag, "WriteRequestNotPending")
  })))

  it.effect("another app's request, or one of another workspace, is not found and stays as it was", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(byConnection)
    const keyRequest = yield* queueWithoutCall({ ...byConnection, connectionId: null, apiKeyId: ApiKeyId.make("key_1") })
    for (const [workspaceId, requesterId] of [[ws, "con_2"], [ws, "key_1"], [WorkspaceId.make("ws_other"), con1]] as const) {
      assert.isTrue(Option.isNone(yield* findOwnWriteRequest(workspaceId, requesterId, request.id)))
      const refused = yield* Effect.flip(withdrawWriteRequest({ id: request.id, workspaceId, requesterId }))
      assert.strictEqual(refused._tag, "WriteRequestNotFound")
    }
    assert.strictEqual((yield* findRequest(request.id)).status, "pending_approval")
    // Each credential sees its own: the key its request, the connection its one.
    assert.deepStrictEqual(Option.map(yield* findOwnWriteRequest(ws, "key_1", keyRequest.id), (r) => r.id), Option.some(keyRequest.id))
    assert.deepStrictEqual(Option.map(yield* findOwnWriteRequest(ws, con1, request.id), (r) => r.id), Option.some(request.id))
  })))

  it.effect("a person's decline is not a withdrawal", () => inWorld(Effect.gen(function* () {
    const request = yield* queueWithoutCall(byConnection)
    const declined = yield* decideWriteRequest({ id: request.id, workspaceId: ws, deciderId: people.admin, decision: "reject" })
    assert.deepStrictEqual([declined.status, isWithdrawn(declined)], ["rejected", false])
  })))
})
