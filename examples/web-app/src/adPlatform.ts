// The app's own ad platform, offered to AI apps through adgate: one family ("acme") with a read tool (list the
// workspace's campaigns) and a write tool (set a campaign's daily budget). adgate decides who may call them, asks a
// person before a write runs, and calls `execute` once approved; the platform keeps the answer of each write by its
// idempotency token, so a retried approval never applies twice. Each call costs 1 credit of the workspace's
// balance in adgate's ledger, which the app tops up with adgate.setCredits (server.ts).
import type { HostPlatforms, PlatformAnswer, ProposedChange, Tool } from "adgate"
import type { Data } from "./data.ts"

const annotations = (title: string, readOnly: boolean) =>
  ({ title, readOnlyHint: readOnly, destructiveHint: false, idempotentHint: readOnly, openWorldHint: false })

const tools: ReadonlyArray<Tool> = [{
  name: "acme__list_campaigns", family: "acme", kind: "read", raw: false, credits: 1, personDecision: false,
  summary: "List the workspace's campaigns with their daily budgets", description: "Every campaign of the workspace's Acme Ads account.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: null, annotations: annotations("List campaigns", true), keywords: ["budget", "spend"]
}, {
  name: "acme__set_daily_budget", family: "acme", kind: "write", raw: false, credits: 1, personDecision: false,
  summary: "Set a campaign's daily budget", description: "Sets the daily budget of one campaign, in the account's currency.",
  inputSchema: {
    type: "object", required: ["campaignId", "dailyBudget"], additionalProperties: false,
    properties: { campaignId: { type: "string" }, dailyBudget: { type: "number", exclusiveMinimum: 0, maximum: 100000 } }
  },
  outputSchema: null, annotations: annotations("Set daily budget", false), keywords: ["budget"]
}]

export const acmeAds = (data: Data): HostPlatforms => {
  const applied = new Map<string, PlatformAnswer>()
  const campaignOf = (workspaceId: string, id: unknown) => {
    const campaign = typeof id === "string" ? data.campaigns.get(id) : undefined
    return campaign?.workspaceId === workspaceId ? campaign : undefined
  }
  const ofWorkspace = (workspaceId: string) => [...data.campaigns.values()].filter((c) => c.workspaceId === workspaceId)
  return {
    families: [{ id: "acme", name: "Acme Ads", kind: "ads" }],
    tools,
    accounts: async (workspaceId) => [{ platform: "acme", id: `acme-${workspaceId}`, name: "Acme Ads", status: "ACTIVE" }],
    preview: async ({ workspaceId, arguments: args }): Promise<ProposedChange> => {
      const campaign = campaignOf(workspaceId, args["campaignId"])
      const to = Number(args["dailyBudget"])
      const total = ofWorkspace(workspaceId).filter((c) => c.status === "ACTIVE").reduce((sum, c) => sum + c.dailyBudget, 0)
      return {
        accountId: `acme-${workspaceId}`,
        target: campaign === undefined ? null : { type: "campaign", id: campaign.id, name: campaign.name },
        dailyBudget: campaign === undefined ? null : { from: campaign.dailyBudget, to },
        accountDailyBudgetBefore: total,
        accountDailyBudgetAfter: campaign === undefined ? total : total - campaign.dailyBudget + to,
        status: null,
        summary: campaign === undefined ? "Set the budget of an unknown campaign" : `Set the daily budget of "${campaign.name}" from ${campaign.dailyBudget} to ${to}`,
        personDecision: false
      }
    },
    execute: async ({ workspaceId, tool, arguments: args, idempotencyToken }) => {
      if (tool.name === "acme__list_campaigns")
        return { providerStatus: 200, body: { campaigns: ofWorkspace(workspaceId).map(({ id, name, dailyBudget, status }) => ({ id, name, dailyBudget, status })) } }
      const replay = idempotencyToken === undefined ? undefined : applied.get(idempotencyToken)
      if (replay !== undefined) return replay
      const campaign = campaignOf(workspaceId, args["campaignId"])
      const answer: PlatformAnswer = campaign === undefined
        ? { providerStatus: 404, body: { error: "no such campaign" } }
        : (campaign.dailyBudget = Number(args["dailyBudget"]), { providerStatus: 200, body: { id: campaign.id, dailyBudget: campaign.dailyBudget } })
      if (idempotencyToken !== undefined) applied.set(idempotencyToken, answer)
      return answer
    }
  }
}
