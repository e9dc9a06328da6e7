// An approved write in the tool pipeline's world (tools/world.ts), shared by the tests of its execution: a budget
// change queued under "wait for approval" and approved by the editor, with the requests' connection con_1 live (an
// execution checks it) and the memory platforms' state to see what ran.
import { callTool, decideWriteRequest } from "@adgate/core"
import { PlatformsMemoryState } from "@adgate/core/testing"
import { Effect, Ref } from "effect"
import { inPipeline as inPipelineWorld, people, principal, ws } from "../tools/world.ts"
import { findRequest, withLiveConnection } from "./world.ts"

/** The pipeline's world with the requests' connection con_1 live (an execution checks it). */
export const inPipeline = <A, E>(effect: Effect.Effect<A, E, any>) => inPipelineWorld(withLiveConnection(ws, people.admin, effect))

export const platformState = Effect.flatMap(PlatformsMemoryState, Ref.get)

/** Queues a budget change of campaign c2 (50 → 55) under "wait for approval" and approves it as the editor. */
export const queuedAndApproved = Effect.gen(function* () {
  const answer = yield* callTool({
    principal: principal({ writeMode: "wait" }), name: "ads__update_campaign_budget",
    arguments: { accountId: "act_1", campaignId: "c2", dailyBudget: 55 }, idempotencyKey: null
  })
  if (answer._tag !== "Queued") return yield* Effect.die("expected a queued write")
  const queued = yield* findRequest(answer.requestId)
  yield* decideWriteRequest({ id: queued.id, workspaceId: ws, deciderId: people.editor, decision: "approve", argumentsHash: queued.argumentsHash })
  return queued.id
})
