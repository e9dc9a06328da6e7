// The app's ad platform keeps the promise every "never applied twice" relies on (the Platforms port's contract from
// @adgate/contract-kit): the same idempotency token answers the first answer again and changes nothing, even sent
// concurrently; another token is another call.
import { platformsContract } from "@adgate/contract-kit"
import { WorkspaceId } from "@adgate/core"
import { Platforms, platformsLayer } from "adgate"
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { acmeAds } from "../src/adPlatform.ts"
import { makeData } from "../src/data.ts"

const data = makeData()
let workspaces = 0

layer(platformsLayer(acmeAds(data)))("the app's ad platform", (it) => {
  platformsContract(it, {
    setUp: Effect.sync(() => {
      const id = `w-${++workspaces}`
      data.addWorkspace({ id, name: id, plan: "paid" }, {})
      data.campaigns.set(`c-${id}`, { id: `c-${id}`, workspaceId: id, name: "Brand", dailyBudget: 100, status: "ACTIVE" })
      return WorkspaceId.make(id)
    }),
    setBudget: (workspaceId, to, token) => Effect.gen(function* () {
      const platforms = yield* Platforms
      return yield* platforms.execute({
        workspaceId, tool: platforms.tools.find((t) => t.name === "acme__set_daily_budget")!,
        arguments: { campaignId: `c-${workspaceId}`, dailyBudget: to }, ...(token === undefined ? {} : { idempotencyToken: token })
      })
    }),
    budgetNow: (workspaceId) => Effect.sync(() => data.campaigns.get(`c-${workspaceId}`)!.dailyBudget)
  })
})
