// A small in-memory Platforms for core tests: two families (an ads platform `ads` and a store `shop`), a handful of
// tools, state in a Ref, previews computed from that state, platform-style errors, and the idempotency token honoured.
// The sandbox platforms of packages/adapters-platforms are the real reference adapter; this one only serves tests.
import { Context, Effect, Layer, Ref, type Schema } from "effect"
import type { PlatformFamily, Tool } from "../tools/Tool.ts"
import { type Account, type PlatformAnswer, Platforms, PlatformUnavailable, type ProposedChange, type ToolCall } from "../ports/Platforms.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface MemoryCampaign {
  readonly id: string
  readonly accountId: string
  readonly name: string
  readonly dailyBudget: number
  readonly status: "ENABLED" | "PAUSED"
}
export interface MemoryProduct { readonly id: string; readonly accountId: string; readonly title: string }

export interface MemoryPlatformState {
  readonly accounts: ReadonlyArray<Account & { readonly workspaceId: WorkspaceId }>
  readonly campaigns: ReadonlyArray<MemoryCampaign>
  readonly products: ReadonlyArray<MemoryProduct>
  /** Answers already given per idempotency token: a repeated token answers the same and changes nothing. */
  readonly applied: ReadonlyMap<string, PlatformAnswer>
  /** Every call that reached `execute` and ran (replays by token excluded). */
  readonly executions: ReadonlyArray<{ readonly tool: string; readonly token: string | null }>
  /** When true every port call fails PlatformUnavailable. */
  readonly down: boolean
}

/** The test's handle on the platform's state. */
export class PlatformsMemoryState extends Context.Service<PlatformsMemoryState, Ref.Ref<MemoryPlatformState>>()(
  "core/ports/memory/PlatformsMemoryState"
) {}

const families: ReadonlyArray<PlatformFamily> = [
  { id: "ads", name: "Ads (memory)", kind: "ads" },
  { id: "shop", name: "Shop (memory)", kind: "store" }
]

const annotations = (title: string, write: boolean, destructive = false) =>
  ({ title, readOnlyHint: !write, destructiveHint: destructive, idempotentHint: !write, openWorldHint: true })

const object = (properties: Schema.JsonObject, required: ReadonlyArray<string>): Schema.JsonObject =>
  ({ type: "object", properties, required: [...required], additionalProperties: false })

const tool = (t: Omit<Tool, "outputSchema" | "keywords" | "description"> & Partial<Pick<Tool, "keywords">>): Tool =>
  ({ outputSchema: null, description: t.summary, keywords: [], ...t })

const accountId = { type: "string", minLength: 1 }
export const memoryTools: ReadonlyArray<Tool> = [
  tool({
    name: "ads__list_campaigns", family: "ads", kind: "read", raw: false, summary: "List the campaigns of an ad account",
    inputSchema: object({ accountId }, ["accountId"]), annotations: annotations("List campaigns", false), credits: 1,
    personDecision: false, keywords: ["report", "spend"]
  }),
  tool({
    name: "ads__update_campaign_budget", family: "ads", kind: "write", raw: false, summary: "Change a campaign's daily budget",
    inputSchema: object({ accountId, campaignId: { type: "string" }, dailyBudget: { type: "number", exclusiveMinimum: 0 } },
      ["accountId", "campaignId", "dailyBudget"]),
    annotations: annotations("Update budget", true), credits: 5, personDecision: false, keywords: ["budget", "raise"]
  }),
  tool({
    name: "ads__pause_campaign", family: "ads", kind: "write", raw: false, summary: "Pause a campaign",
    inputSchema: object({ accountId, campaignId: { type: "string" } }, ["accountId", "campaignId"]),
    annotations: annotations("Pause campaign", true), credits: 2, personDecision: false
  }),
  tool({
    name: "ads__enable_campaign", family: "ads", kind: "write", raw: false, summary: "Activate a paused campaign",
    inputSchema: object({ accountId, campaignId: { type: "string" } }, ["accountId", "campaignId"]),
    annotations: annotations("Enable campaign", true), credits: 2, personDecision: true
  }),
  tool({
    name: "ads__raw", family: "ads", kind: "write", raw: true, summary: "Call the ads platform's own API",
    inputSchema: object({ method: { enum: ["GET", "POST", "DELETE"] }, path: { type: "string" }, body: {} }, ["method", "path"]),
    annotations: annotations("Raw ads API", true, true), credits: 3, personDecision: false
  }),
  tool({
    name: "shop__list_products", family: "shop", kind: "read", raw: false, summary: "List the products of a store",
    inputSchema: object({ accountId }, ["accountId"]), annotations: annotations("List products", false), credits: 1,
    personDecision: false
  }),
  tool({
    name: "shop__delete_product", family: "shop", kind: "write", raw: false, summary: "Delete a product",
    inputSchema: object({ accountId, productId: { type: "string" } }, ["accountId", "productId"]),
    annotations: annotations("Delete product", true, true), credits: 2, personDecision: true
  })
]

const answer = (providerStatus: number, body: Schema.Json): PlatformAnswer => ({ providerStatus, body })
const str = (args: Schema.JsonObject, key: string): string => (typeof args[key] === "string" ? args[key] : "")

const campaignOf = (s: MemoryPlatformState, call: ToolCall): MemoryCampaign | undefined =>
  s.campaigns.find((c) => c.id === str(call.arguments, "campaignId") && c.accountId === str(call.arguments, "accountId"))

const accountBudget = (s: MemoryPlatformState, accountId: string, replaced?: MemoryCampaign): number =>
  s.campaigns.filter((c) => c.accountId === accountId && c.status === "ENABLED")
    .reduce((sum, c) => sum + (replaced !== undefined && c.id === replaced.id ? replaced.dailyBudget : c.dailyBudget), 0)

const ownsAccount = (s: MemoryPlatformState, call: ToolCall): boolean =>
  s.accounts.some((a) => a.workspaceId === call.workspaceId && a.platform === call.tool.family && a.id === str(call.arguments, "accountId"))

const preview = (s: MemoryPlatformState, call: ToolCall): ProposedChange => {
  const none: ProposedChange = {
    accountId: str(call.arguments, "accountId") || null, target: null, dailyBudget: null, accountDailyBudgetBefore: null, accountDailyBudgetAfter: null,
    status: null, summary: `${call.tool.name}`,
    // This platform reads no raw write as one of its tools: each is a person's decision (fail closed).
    personDecision: call.tool.personDecision || call.tool.raw
  }
  const campaign = ownsAccount(s, call) ? campaignOf(s, call) : undefined
  switch (call.tool.name) {
    case "ads__update_campaign_budget": {
      if (campaign === undefined) return none
      const to = typeof call.arguments["dailyBudget"] === "number" ? call.arguments["dailyBudget"] : campaign.dailyBudget
      return {
        ...none, target: { type: "campaign", id: campaign.id, name: campaign.name },
        dailyBudget: { from: campaign.dailyBudget, to },
        accountDailyBudgetBefore: accountBudget(s, campaign.accountId),
        accountDailyBudgetAfter: accountBudget(s, campaign.accountId, { ...campaign, dailyBudget: to }),
        summary: `Change the daily budget of "${campaign.name}" from ${campaign.dailyBudget} to ${to}`
      }
    }
    case "ads__pause_campaign":
    case "ads__enable_campaign": {
      if (campaign === undefined) return none
      const to = call.tool.name === "ads__pause_campaign" ? "PAUSED" : "ENABLED"
      return {
        ...none, target: { type: "campaign", id: campaign.id, name: campaign.name },
        status: { from: campaign.status, to },
        accountDailyBudgetBefore: accountBudget(s, campaign.accountId),
        accountDailyBudgetAfter: accountBudget(s, campaign.accountId, { ...campaign, status: to }),
        summary: `Set "${campaign.name}" to ${to}`
      }
    }
    case "shop__delete_product": {
      const product = s.products.find((p) => p.id === str(call.arguments, "productId"))
      return product === undefined ? none : { ...none, target: { type: "product", id: product.id, name: product.title }, summary: `Delete "${product.title}"` }
    }
    default:
      return none
  }
}

/** Runs one call on the state: the next state and the answer. */
const run = (s: MemoryPlatformState, call: ToolCall): readonly [PlatformAnswer, MemoryPlatformState] => {
  const notFound = (what: string) => [answer(404, { error: "NOT_FOUND", message: `${what} not found` }), s] as const
  if (call.tool.raw) {
    const method = str(call.arguments, "method")
    if (method === "GET" && str(call.arguments, "path") === "/campaigns") {
      return [answer(200, { campaigns: s.campaigns.map((c) => ({ id: c.id, name: c.name })) }), s]
    }
    return notFound(`${method} ${str(call.arguments, "path")}`)
  }
  if (!ownsAccount(s, call)) return notFound(`account ${str(call.arguments, "accountId")}`)
  const accountIdArg = str(call.arguments, "accountId")
  switch (call.tool.name) {
    case "ads__list_campaigns":
      return [answer(200, { campaigns: s.campaigns.filter((c) => c.accountId === accountIdArg).map((c) => ({ ...c })) }), s]
    case "shop__list_products":
      return [answer(200, { products: s.products.filter((p) => p.accountId === accountIdArg).map((p) => ({ ...p })) }), s]
    case "ads__update_campaign_budget":
    case "ads__pause_campaign":
    case "ads__enable_campaign": {
      const campaign = campaignOf(s, call)
      if (campaign === undefined) return notFound(`campaign ${str(call.arguments, "campaignId")}`)
      const budget = call.arguments["dailyBudget"]
      // A platform-side validation error, like real ad platforms' minimum budgets.
      if (call.tool.name === "ads__update_campaign_budget" && typeof budget === "number" && budget < 1) {
        return [answer(400, { error: "INVALID_ARGUMENT", message: "dailyBudget is below the minimum of 1.00" }), s]
      }
      const next: MemoryCampaign = call.tool.name === "ads__update_campaign_budget"
        ? { ...campaign, dailyBudget: typeof budget === "number" ? budget : campaign.dailyBudget }
        : { ...campaign, status: call.tool.name === "ads__pause_campaign" ? "PAUSED" : "ENABLED" }
      return [answer(200, { campaign: { ...next } }), { ...s, campaigns: s.campaigns.map((c) => (c.id === next.id ? next : c)) }]
    }
    case "shop__delete_product": {
      const product = s.products.find((p) => p.id === str(call.arguments, "productId") && p.accountId === accountIdArg)
      if (product === undefined) return notFound(`product ${str(call.arguments, "productId")}`)
      return [answer(200, { deleted: product.id }), { ...s, products: s.products.filter((p) => p.id !== product.id) }]
    }
    default:
      return notFound(`tool ${call.tool.name}`)
  }
}

export const emptyPlatformsMemoryState: MemoryPlatformState = {
  accounts: [], campaigns: [], products: [], applied: new Map(), executions: [], down: false
}

/** The Platforms port over a state the test seeds and reads through PlatformsMemoryState. */
/** A workspace's connected account of the in-memory catalog, in memoryPlatformFixture. */
export interface MemoryFixtureAccount { readonly workspaceId: WorkspaceId; readonly id: string; readonly name: string }

/**
 * The one fixture of the in-memory platforms that the core's and the adapters' tests share: the main workspace's
 * `ads` account with three campaigns (Brand – Search 100 and Generic 50 enabled, Summer sale 20 paused) and its `shop`
 * account with one product (p1, "Old mug"); every other workspace an `ads` account without campaigns.
 */
export const memoryPlatformFixture = (
  main: { readonly ads: MemoryFixtureAccount; readonly shop: MemoryFixtureAccount },
  others: ReadonlyArray<MemoryFixtureAccount> = []
): Pick<MemoryPlatformState, "accounts" | "campaigns" | "products"> => ({
  accounts: [
    { ...main.ads, platform: "ads", status: "ENABLED" },
    { ...main.shop, platform: "shop", status: "active" },
    ...others.map((account) => ({ ...account, platform: "ads", status: "ENABLED" }))
  ],
  campaigns: [
    { id: "c1", accountId: main.ads.id, name: "Brand – Search", dailyBudget: 100, status: "ENABLED" },
    { id: "c2", accountId: main.ads.id, name: "Generic", dailyBudget: 50, status: "ENABLED" },
    { id: "c3", accountId: main.ads.id, name: "Summer sale", dailyBudget: 20, status: "PAUSED" }
  ],
  products: [{ id: "p1", accountId: main.shop.id, title: "Old mug" }]
})

export const PlatformsMemory = (seed: Partial<MemoryPlatformState>) =>
  Layer.effect(Platforms, Effect.gen(function* () {
    const state = yield* PlatformsMemoryState
    const up = <A>(f: (s: MemoryPlatformState) => A, platform: string) =>
      Effect.flatMap(Ref.get(state), (s) =>
        s.down ? Effect.fail(new PlatformUnavailable({ platform, message: "the platform did not answer" })) : Effect.succeed(f(s)))
    return Platforms.of({
      families,
      tools: memoryTools,
      accounts: (workspaceId, family) =>
        up((s) => s.accounts.filter((a) => a.workspaceId === workspaceId && (family === undefined || a.platform === family))
          .map(({ workspaceId: _, ...a }) => a), "all"),
      preview: (call) => up((s) => preview(s, call), call.tool.family),
      execute: (call) =>
        Effect.flatMap(up(() => undefined, call.tool.family), () =>
          Ref.modify(state, (s): readonly [PlatformAnswer, MemoryPlatformState] => {
            const token = call.idempotencyToken ?? null
            const replay = token === null ? undefined : s.applied.get(token)
            if (replay !== undefined) return [replay, s]
            const [result, next] = run(s, call)
            return [result, {
              ...next,
              applied: token === null ? next.applied : new Map(next.applied).set(token, result),
              executions: [...next.executions, { tool: call.tool.name, token }]
            }]
          }))
    })
  })).pipe(Layer.provideMerge(Layer.effect(PlatformsMemoryState, Ref.make<MemoryPlatformState>({ ...emptyPlatformsMemoryState, ...seed }))))
