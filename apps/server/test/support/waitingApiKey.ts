// A "Wait for approval" API key on the seeded Demo workspace (created by its admin), and writes queued with it: the
// set-up of the CLI's write-request tests.
import { Effect } from "effect"
import { callTool, createApiKey, findUser, findWorkspace, Platforms, type Principal } from "@adgate/core"

/** The key `name` (tools:read, tools:write; writes wait), the ids of Demo's enabled Google Ads campaigns, and `queue`: a pause of one, queued (its request id). */
export const waitingApiKey = (name: string) =>
  Effect.gen(function* () {
    const workspace = yield* findWorkspace("Demo")
    const admin = yield* findUser("admin@example.com")
    const { key } = yield* createApiKey({
      workspaceId: workspace.id, actorId: admin.id, name, scopes: ["tools:read", "tools:write"], toolWrites: "wait"
    })
    const principal: Principal = {
      kind: "api_key", workspaceId: workspace.id, userId: admin.id, scopes: ["tools:read", "tools:write"], surface: "both",
      platforms: "all", writeMode: "wait", connectionId: null, apiKeyId: key.id, clientId: null
    }
    const account = (yield* (yield* Platforms).accounts(workspace.id)).find((a) => a.platform === "gads")!
    const listed = yield* callTool({ principal, name: "gads__list_campaigns", arguments: { accountId: account.id }, idempotencyKey: null })
    const enabledCampaigns = (listed as unknown as { result: { results: Array<{ id: string; status: string }> } }).result.results
      .filter((c) => c.status === "ENABLED").map((c) => c.id)
    const queue = (campaignId: string) =>
      Effect.map(callTool({ principal, name: "gads__pause_campaign", arguments: { accountId: account.id, campaignId }, idempotencyKey: null }),
        (answer) => (answer._tag === "Queued" ? answer.requestId : ""))
    return { workspace, admin, key, enabledCampaigns, queue }
  })
