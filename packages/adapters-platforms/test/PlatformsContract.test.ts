// The Platforms port contract (@adgate/contract-kit, src/contracts/Platforms.contract.ts) against the core's in-memory Platforms and the sandbox
// platforms on PGlite and, when DATABASE_URL is set, PostgreSQL: the promise every "never applied twice" relies on.
import { Platforms, type Tool, WorkspaceId, UserId } from "@adgate/core"
import { PlatformsMemory, PlatformsMemoryState } from "@adgate/core/testing"
import { layer } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import type { SqlClient } from "effect/sql"
import { SandboxConnections } from "../src/PlatformsSandbox.ts"
import { databaseUrl, pgliteDatabase, platformsOn, postgresDatabase, tempDataDir } from "./databases.ts"
import { platformsContract } from "@adgate/contract-kit"

const toolNamed = (name: string) => Effect.map(Platforms, (p) => {
  const tool = p.tools.find((t: Tool) => t.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool
})
const fresh = () => WorkspaceId.make(`ws_contract_${Math.random().toString(36).slice(2, 12)}`)

layer(PlatformsMemory({}), { excludeTestServices: true })("Platforms contract: PlatformsMemory", (it) => {
  platformsContract(it, {
    setUp: Effect.gen(function* () {
      const ws = fresh()
      yield* Ref.update(yield* PlatformsMemoryState, (s) => ({
        ...s,
        accounts: [...s.accounts, { workspaceId: ws, platform: "ads", id: `act_${ws}`, name: "Ads", status: "ENABLED" }],
        campaigns: [...s.campaigns, { id: `c_${ws}`, accountId: `act_${ws}`, name: "Brand", dailyBudget: 100, status: "ENABLED" as const }]
      }))
      return ws
    }),
    setBudget: (ws, to, token) => Effect.gen(function* () {
      const tool = yield* toolNamed("ads__update_campaign_budget")
      return yield* (yield* Platforms).execute({
        workspaceId: ws, tool, arguments: { accountId: `act_${ws}`, campaignId: `c_${ws}`, dailyBudget: to },
        ...(token === undefined ? {} : { idempotencyToken: token })
      })
    }),
    budgetNow: (ws) => Effect.map(Effect.flatMap(PlatformsMemoryState, Ref.get), (s) => s.campaigns.find((c) => c.id === `c_${ws}`)!.dailyBudget)
  })
})

const gads = "3842019576"
const sandbox = (name: string, database: () => Layer.Layer<SqlClient.SqlClient, unknown>) =>
  layer(platformsOn(database()), { timeout: "120 seconds", excludeTestServices: true })(name, (it) => {
    platformsContract(it, {
      setUp: Effect.gen(function* () {
        const ws = fresh()
        yield* (yield* SandboxConnections).connect(ws, "gads", UserId.make("usr_test"))
        return ws
      }),
      setBudget: (ws, to, token) => Effect.gen(function* () {
        const tool = yield* toolNamed("gads__update_campaign_budget")
        return yield* (yield* Platforms).execute({
          workspaceId: ws, tool, arguments: { accountId: gads, campaignId: "20481001", dailyBudget: to },
          ...(token === undefined ? {} : { idempotencyToken: token })
        })
      }),
      budgetNow: (ws) => Effect.gen(function* () {
        const tool = yield* toolNamed("gads__raw")
        const answer = yield* (yield* Platforms).execute({
          workspaceId: ws, tool, arguments: { method: "GET", path: `/v17/customers/${gads}/campaigns/20481001` }
        })
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const body = answer.body as any
        return Number(body.dailyBudget)
      })
    })
  })

sandbox("Platforms contract: sandbox on PGlite", () => pgliteDatabase(tempDataDir()))
if (Option.isSome(databaseUrl)) {
  const url = databaseUrl.value
  sandbox("Platforms contract: sandbox on PostgreSQL", () => postgresDatabase(url))
}
