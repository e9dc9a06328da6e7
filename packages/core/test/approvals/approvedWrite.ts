// An approved write in the tool pipeline's world (tools/world.ts), shared by the tests of its execution: a budget
// change queued under "wait for approval" and approved by the editor, with the requests' connection con_1 live (an
// execution checks it) and the memory platforms' state to see what ran.
import { callTool, decideWriteRequest, type UserId } from "@adgate/core"
import { PlatformsMemoryState } from "@adgate/core/testing"
import { Effect, Ref } from "effect"
import { inPipeline as inPipelineWorld, people, principal, ws } from "../tools/world.ts"
import { findRequest, withLiveConnection } from "./world.ts"

/** The pipeline's world with the requests' connection con_1 live (an execution checks it). */
export const inPipeline = <A, E>(effect: Effect.Effect<A, E, any>) => inPipelineWorld(withLiveConnection(ws, people.admin, effect))

export const platformState = Effect.flatMap(PlatformsMemoryState, Ref.get)

/** Queues a change of campaign c2's daily budget (50 now) to `dailyBudget` under "wait for approval"; `deciderId` approves it. */
export const approvedBudgetChange = (dailyBudget: number, deciderId: UserId) => Effect.gen(function* () {
  const answer = yield* callTool({
    principal: principal({ writeMode: "wait" }), name: "ads__update_campaign_budget",
    arguments: { accountId: "act_1", campaignId: "c2", dailyBudget }, idempotencyKey: null
  })
  if (answer._tag !== "Queued") return yield* Effect.die("expected a queued write")
  const queued = yield* findRequest(answer.requestId)
  yield* decideWriteRequest({ id: queued.id, workspaceId: ws, deciderId, decision: "approve", argumentsHash: queued.argumentsHash })
  return queued.id
})

/** The budget change 50 → 55, approved by the editor. */
export const queuedAndApproved = approvedBudgetChange(55, people.editor)
