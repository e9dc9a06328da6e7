// The tool pipeline, one named test per REST status row it decides (spec §REST status codes; architecture §One tool
// pipeline), on memory ports and the in-memory platforms.
import {
  AuditLog, ClientId,
  callTool,
  CreditsLedger,
  Directory,
  DirectoryUnavailable,
  EventOutbox,
  hashToolCall,
  Observations,
  Platforms,
  Secrets,
  GuardrailStore,
  IdempotencyStore,
  idempotencyScopeOf,
  Mailer,
  noGuardrails,
  ToolUsageLog,
  WriteRequestStore,
  writeRequestLifetimeMs,
  type ToolCallRequest,
  WorkspaceId,
  ConnectionId,
  ApiKeyId
} from "@adgate/core"
import { PlatformsMemoryState } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { audited } from "../support/audited.ts"
import { inPipeline, people, principal, ws, wsBare, wsFree } from "./world.ts"

const call = (name: string, args: ToolCallRequest["arguments"], over: Partial<ToolCallRequest> = {}): ToolCallRequest =>
  ({ principal: principal(), name, arguments: args, idempotencyKey: null, ...over })

const refusal = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flip(effect)

const budget = (dailyBudget: number) => ({ accountId: "act_1", campaignId: "c1", dailyBudget })
const campaign = (id: string) => Effect.map(Effect.flatMap(PlatformsMemoryState, Ref.get), (s) => s.campaigns.find((c) => c.id === id))
const executions = Effect.map(Effect.flatMap(PlatformsMemoryState, Ref.get), (s) => s.executions.length)
const balance = Effect.flatMap(CreditsLedger, (l) => l.balance(ws))

describe("callTool: status rows", () => {
  it.effect("200: a read runs now, answers the platform's result and is charged the tool's credits", () => inPipeline(Effect.gen(function* () {
    const answer = yield* callTool(call("ads__list_campaigns", { accountId: "act_1" }))
    assert.strictEqual(answer._tag, "Ran")
    if (answer._tag !== "Ran") return
    assert.strictEqual(answer.providerStatus, 200)
    assert.strictEqual((answer.result as { campaigns: Array<unknown> }).campaigns.length, 3)
    assert.deepStrictEqual(answer.notices, [])
    assert.strictEqual(yield* balance, 99)
    const [usage] = yield* (yield* ToolUsageLog).list(ws, 10)
    assert.deepInclude(usage, { tool: "ads__list_campaigns", kind: "read", outcome: "succeeded", credits: 1, connectionId: ConnectionId.make("con_1") })
  })))

  it.effect("deletes, activations, code for a website and platform-marked changes always wait for a person: a raw write the platform cannot read waits in apply mode", () => inPipeline(Effect.gen(function* () {
    const raw = principal({ writeMode: "apply", scopes: ["tools:read", "tools:write", "tools:raw"] })
    const answer = yield* callTool(call("ads__raw", { method: "DELETE", path: "/campaigns/c1" }, { principal: raw }))
    assert.deepInclude(answer, { _tag: "Queued", reason: "person_decision" })
    assert.strictEqual(yield* executions, 0)
  })))

  it.effect("202: a write under 'wait for approval' is queued (reason approval), changes nothing, and its WriteQueued event asks for the audit entry and the person's mail", () => inPipeline(Effect.gen(function* () {
    const answer = yield* callTool(call("ads__update_campaign_budget", budget(110), { principal: principal({ writeMode: "wait" }) }))
    assert.strictEqual(answer._tag, "Queued")
    if (answer._tag !== "Queued") return
    assert.match(answer.requestId, /^rwq_/)
    assert.strictEqual(answer.status, "pending_approval")
    assert.strictEqual(answer.reason, "approval")
    assert.strictEqual((yield* campaign("c1"))?.dailyBudget, 100)
    assert.strictEqual(yield* executions, 0)
    assert.strictEqual(yield* balance, 100, "a queued write is charged when it executes")
    const stored = yield* (yield* WriteRequestStore).find(answer.requestId)
    assert.isTrue(Option.isSome(stored) && stored.value.tool === "ads__update_campaign_budget")
    // The mail's recipient and words are the adapters' mail reader's (adapters-sql/test/toolPipelineEvents.test.ts);
    // the pipeline queues none itself and writes no audit entry itself: both come from the one event.
    assert.deepStrictEqual(yield* (yield* Mailer).pending(10), [], "the pipeline queues no mail itself")
    assert.deepStrictEqual(yield* (yield* AuditLog).list(ws), [], "the pipeline writes no audit entry itself")
    const forMail = yield* (yield* EventOutbox).claim("mail", 10)
    assert.strictEqual(forMail.length, 1)
    const event = forMail[0]!.event
    assert.strictEqual(event._tag, "WriteQueued")
    if (event._tag !== "WriteQueued") return
    assert.deepInclude(event, {
      requestId: answer.requestId, workspaceId: ws, requestedBy: people.admin, tool: "ads__update_campaign_budget",
      clientId: ClientId.make("apc_1"), connectionId: ConnectionId.make("con_1"), apiKeyId: null, reason: "approval", expiresAt: event.at + writeRequestLifetimeMs
    })
    assert.include(event.summary ?? "", "Brand – Search")
    const audit = yield* audited(ws)
    assert.deepStrictEqual(audit.map(({ id: _, ...entry }) => entry), [{
      workspaceId: ws, at: event.at, actorId: people.admin, action: "write_request.queued", clientId: ClientId.make("apc_1"),
      connectionId: ConnectionId.make("con_1"),
      detail: { tool: "ads__update_campaign_budget", requestId: answer.requestId, reason: "approval", summary: event.summary, apiKeyId: null }
    }])
    assert.deepStrictEqual((yield* audited(ws)).length, 1, "a second drain adds nothing")
  })))

  it.effect("202: an activation is a person's decision and waits even when ordinary changes apply at once", () => inPipeline(Effect.gen(function* () {
    const answer = yield* callTool(call("ads__enable_campaign", { accountId: "act_1", campaignId: "c3" }))
    assert.deepInclude(answer, { _tag: "Queued", reason: "person_decision" })
    assert.strictEqual((yield* campaign("c3"))?.status, "PAUSED")
  })))

  it.effect("200: a write under 'apply ordinary changes at once' runs now, is charged and audited", () => inPipeline(Effect.gen(function* () {
    const answer = yield* callTool(call("ads__update_campaign_budget", budget(110)))
    assert.deepInclude(answer, { _tag: "Ran", providerStatus: 200 })
    assert.strictEqual((yield* campaign("c1"))?.dailyBudget, 110)
    assert.strictEqual(yield* balance, 95)
    assert.deepStrictEqual(yield* (yield* AuditLog).list(ws), [], "the pipeline writes no audit entry itself")
    const audit = yield* audited(ws)
    assert.deepStrictEqual(audit.map((e) => [e.action, e.actorId, e.clientId, e.connectionId]), [
      ["tool.write_applied", people.admin, "apc_1", ConnectionId.make("con_1")]
    ])
    assert.deepInclude(audit[0]?.detail, { tool: "ads__update_campaign_budget", providerStatus: 200, requestId: null, apiKeyId: null })
    assert.include(String(audit[0]?.detail["summary"]), "from 100 to 110")
  })))

  it.effect("404: no such tool", () => inPipeline(Effect.gen(function* () {
    const error = yield* refusal(callTool(call("ads__nope", {})))
    assert.deepInclude(error, { _tag: "ToolNotFound", name: "ads__nope" })
  })))

  it.effect("403 insufficient_scope names the scope to ask for: tools:read, tools:write, tools:raw by the call's kind", () => inPipeline(Effect.gen(function* () {
    const none = principal({ scopes: ["accounts:read"] })
    const read = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_1" }, { principal: none })))
    const write = yield* refusal(callTool(call("ads__pause_campaign", { accountId: "act_1", campaignId: "c1" }, { principal: principal({ scopes: ["tools:read"] }) })))
    const raw = yield* refusal(callTool(call("ads__raw", { method: "GET", path: "/campaigns" }, { principal: principal({ scopes: ["tools:read", "tools:write"] }) })))
    assert.deepInclude(read, { _tag: "ToolScopeMissing", scope: "tools:read" })
    assert.deepInclude(write, { _tag: "ToolScopeMissing", scope: "tools:write" })
    assert.deepInclude(raw, { _tag: "ToolScopeMissing", scope: "tools:raw" })
  })))

  it.effect("403: platform tools need a paid plan", () => inPipeline(Effect.gen(function* () {
    const error = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_free" }, { principal: principal({ workspaceId: wsFree }) })))
    assert.deepInclude(error, { _tag: "ToolPlanNotPaid", workspaceId: wsFree })
  })))

  it.effect("403: platform tools act for a workspace admin; a key whose creator is now an editor is refused", () => inPipeline(Effect.gen(function* () {
    const key = principal({ kind: "api_key", userId: people.editor, connectionId: null, apiKeyId: ApiKeyId.make("key_1"), clientId: null })
    const error = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_1" }, { principal: key })))
    assert.deepInclude(error, { _tag: "ToolRoleNotAllowed", userId: people.editor })
  })))

  it.effect("403: a platform outside the connection's platform choice is refused", () => inPipeline(Effect.gen(function* () {
    const error = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_1" }, { principal: principal({ platforms: ["shop"] }) })))
    assert.deepInclude(error, { _tag: "ToolPlatformNotAllowed", platform: "ads" })
  })))

  it.effect("409: no connected account of the tool's platform; an accountId of no connected account is refused too", () => inPipeline(Effect.gen(function* () {
    const none = yield* refusal(callTool(call("shop__list_products", { accountId: "x" }, { principal: principal({ workspaceId: wsBare }) })))
    assert.deepInclude(none, { _tag: "NoConnectedAccount", platform: "shop" })
    const other = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_free" })))
    assert.deepInclude(other, { _tag: "AccountNotConnected", accountId: "act_free" })
  })))

  it.effect("422: arguments that do not match the tool's schema, every problem listed, nothing run or charged", () => inPipeline(Effect.gen(function* () {
    const error = yield* refusal(callTool(call("ads__update_campaign_budget", { accountId: "act_1", dailyBudget: "lots", color: 1 })))
    assert.strictEqual(error._tag, "ToolArgumentsInvalid")
    if (error._tag !== "ToolArgumentsInvalid") return
    assert.deepStrictEqual(error.problems.map((p) => p.path).sort(), ["/campaignId", "/color", "/dailyBudget"])
    assert.strictEqual(yield* executions, 0)
    assert.strictEqual(yield* balance, 100)
  })))

  it.effect("422: a guardrail refuses, naming the guardrail and why (protected names)", () => inPipeline(Effect.gen(function* () {
    yield* (yield* GuardrailStore).save({ ...noGuardrails(ws), protectedNames: ["brand*"] })
    const error = yield* refusal(callTool(call("ads__update_campaign_budget", budget(110), { principal: principal({ writeMode: "wait" }) })))
    assert.deepInclude(error, { _tag: "GuardrailRefused", guardrail: "protected_name" })
    assert.strictEqual((yield* (yield* WriteRequestStore).listPending(ws)).length, 0, "a refused write is not queued")
    const [usage] = yield* (yield* ToolUsageLog).list(ws, 1)
    assert.deepInclude(usage, { tool: "ads__update_campaign_budget", outcome: "refused", credits: 0 })
  })))

  it.effect("422: the spend cap through the pipeline refuses a raise past the account's ceiling, queued or run now; a cut on an account above it runs", () => inPipeline(Effect.gen(function* () {
    // Brand – Search 100 and Generic 50 are enabled: the account spends 150 a day.
    const guardrails = yield* GuardrailStore
    yield* guardrails.save({ ...noGuardrails(ws), maxDailyBudgetPerAccount: 160 })
    const generic = (dailyBudget: number) => ({ accountId: "act_1", campaignId: "c2", dailyBudget })
    for (const writeMode of ["apply", "wait"] as const) {
      const error = yield* refusal(callTool(call("ads__update_campaign_budget", generic(70), { principal: principal({ writeMode }) })))
      assert.deepInclude(error, { _tag: "GuardrailRefused", guardrail: "daily_budget_per_account" })
    }
    assert.strictEqual(yield* executions, 0)
    assert.strictEqual((yield* (yield* WriteRequestStore).listPending(ws)).length, 0)
    assert.strictEqual((yield* campaign("c2"))?.dailyBudget, 50)
    // Up to the ceiling exactly runs.
    assert.strictEqual((yield* callTool(call("ads__update_campaign_budget", generic(60))))._tag, "Ran")
    // The ceiling under the account's total: a cut lowers spend and runs; a raise, however small, does not.
    yield* guardrails.save({ ...noGuardrails(ws), maxDailyBudgetPerAccount: 120 })
    assert.strictEqual((yield* callTool(call("ads__update_campaign_budget", generic(55))))._tag, "Ran")
    assert.deepInclude(yield* refusal(callTool(call("ads__update_campaign_budget", generic(56)))), { guardrail: "daily_budget_per_account" })
    assert.strictEqual((yield* campaign("c2"))?.dailyBudget, 55)
  })))

  it.effect("change caps cannot be split through the pipeline: the second +20 % step of one budget in a UTC day is refused, queued or run now; the next day it runs", () => inPipeline(Effect.gen(function* () {
    yield* (yield* GuardrailStore).save({ ...noGuardrails(ws), maxBudgetChangePercent: 20 })
    // Brand – Search: 100 → 120 (+20 %) runs.
    assert.strictEqual((yield* callTool(call("ads__update_campaign_budget", budget(120))))._tag, "Ran")
    // 120 → 144 is +20 % of 120, +44 % of the day's 100: refused, whether it would run now or wait for a person.
    for (const writeMode of ["apply", "wait"] as const) {
      assert.deepInclude(yield* refusal(callTool(call("ads__update_campaign_budget", budget(144), { principal: principal({ writeMode }) }))),
        { _tag: "GuardrailRefused", guardrail: "budget_change_per_day" })
    }
    assert.strictEqual((yield* campaign("c1"))?.dailyBudget, 120)
    // Another budget has its own day: Generic 50 → 60 runs.
    assert.strictEqual((yield* callTool(call("ads__update_campaign_budget", { accountId: "act_1", campaignId: "c2", dailyBudget: 60 })))._tag, "Ran")
    // The next UTC day starts from 120: +20 % runs.
    yield* TestClock.adjust("24 hours")
    assert.strictEqual((yield* callTool(call("ads__update_campaign_budget", budget(144))))._tag, "Ran")
  })))

  it.effect("change caps compare exact decimal amounts through the pipeline: exactly +20 % of 129.6 runs under a 20 % cap", () => inPipeline(Effect.gen(function* () {
    yield* (yield* GuardrailStore).save({ ...noGuardrails(ws), maxBudgetChangePercent: 20 })
    yield* TestClock.adjust("24 hours")
    yield* Ref.update(yield* PlatformsMemoryState, (s) => ({ ...s, campaigns: s.campaigns.map((c) => (c.id === "c1" ? { ...c, dailyBudget: 129.6 } : c)) }))
    assert.strictEqual((yield* callTool(call("ads__update_campaign_budget", budget(155.52))))._tag, "Ran")
    assert.strictEqual((yield* campaign("c1"))?.dailyBudget, 155.52)
  })))

  it.effect("422: the platform ran the call and refused it: its status and answer, and no charge", () => inPipeline(Effect.gen(function* () {
    const error = yield* refusal(callTool(call("ads__update_campaign_budget", budget(0.5))))
    assert.deepInclude(error, { _tag: "PlatformRefused", providerStatus: 400 })
    assert.strictEqual(yield* balance, 100)
    const [usage] = yield* (yield* ToolUsageLog).list(ws, 1)
    assert.deepInclude(usage, { outcome: "failed", credits: 0 })
  })))

  it.effect("402: not enough credits, saying how many are needed and how many are left; nothing runs", () => inPipeline(Effect.gen(function* () {
    yield* (yield* Directory).setCredits(ws, 4)
    const error = yield* refusal(callTool(call("ads__update_campaign_budget", budget(110))))
    assert.deepInclude(error, { _tag: "InsufficientCredits", needed: 5, left: 4 })
    assert.strictEqual(yield* executions, 0)
  })))

  it.effect("503: the platform cannot be reached (fails closed, nothing charged)", () => inPipeline(Effect.gen(function* () {
    yield* Ref.update(yield* PlatformsMemoryState, (s) => ({ ...s, down: true }))
    const error = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_1" })))
    assert.strictEqual(error._tag, "PlatformUnavailable")
    assert.strictEqual(yield* balance, 100)
    // Access is settled before the platform is asked anything: a refused call is 403 even while it is down.
    const forbidden = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_1" }, { principal: principal({ platforms: ["shop"] }) })))
    assert.strictEqual(forbidden._tag, "ToolPlatformNotAllowed")
  })))

  it.effect("503: the Directory cannot confirm plan and role (fails closed)", () => inPipeline(Effect.gen(function* () {
    const directory = yield* Directory
    const unavailable = () => Effect.fail(new DirectoryUnavailable({ message: "down" }))
    const down = Directory.of({ ...directory, role: unavailable, standing: unavailable })
    const error = yield* refusal(callTool(call("ads__list_campaigns", { accountId: "act_1" })).pipe(Effect.provideService(Directory, down)))
    assert.strictEqual(error._tag, "DirectoryUnavailable")
  })))

  it.effect("the plan and role the bearer check read for this request (Principal.standing) are decided on, not read again", () => inPipeline(Effect.gen(function* () {
    const directory = yield* Directory
    const down = Directory.of({
      ...directory,
      role: () => Effect.fail(new DirectoryUnavailable({ message: "read again" })),
      workspace: () => Effect.fail(new DirectoryUnavailable({ message: "read again" })),
      standing: () => Effect.fail(new DirectoryUnavailable({ message: "read again" }))
    })
    const carried = (standing: { readonly plan: "free" | "paid"; readonly role: "admin" | "editor" | "viewer" | null }) =>
      callTool(call("ads__list_campaigns", { accountId: "act_1" }, { principal: principal({ standing }) })).pipe(Effect.provideService(Directory, down))
    assert.deepInclude(yield* carried({ plan: "paid", role: "admin" }), { _tag: "Ran", providerStatus: 200 })
    // The carried standing decides: a free plan is refused as it would be when read.
    assert.strictEqual((yield* refusal(carried({ plan: "free", role: "admin" })))._tag, "ToolPlanNotPaid")
  })))
})

describe("callTool: metrics", () => {
  it.effect("each call counts once with the kind it was found to be (unknown for no such tool) and its outcome", () => inPipeline(Effect.gen(function* () {
    const counted: Array<readonly [string, string]> = []
    const observations = { ...(yield* Observations), toolCall: (kind: string, outcome: string) => { counted.push([kind, outcome]) } }
    const observe = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(Effect.result(effect), Observations, observations)
    yield* observe(callTool(call("ads__list_campaigns", { accountId: "act_1" })))
    yield* observe(callTool(call("ads__nope", {})))
    yield* observe(callTool(call("ads__pause_campaign", { accountId: "act_1", campaignId: "c1" }, { principal: principal({ scopes: ["tools:read"] }) })))
    yield* observe(callTool(call("ads__raw", { method: "GET", path: "/campaigns" }, { principal: principal({ scopes: ["tools:read"] }) })))
    yield* observe(callTool(call("ads__raw", { method: "POST", path: "/campaigns" }, { principal: principal({ scopes: ["tools:read"] }) })))
    // A raw call counts as the kind its method makes it: GET a read, POST a write.
    assert.deepStrictEqual(counted, [["read", "ok"], ["unknown", "ToolNotFound"], ["write", "ToolScopeMissing"], ["read", "ToolScopeMissing"], ["write", "ToolScopeMissing"]])
  })))
})

describe("callTool: credits notices", () => {
  it.effect("a charged answer that leaves the balance below 50 carries a low-credits notice", () => inPipeline(Effect.gen(function* () {
    yield* (yield* Directory).setCredits(ws, 52)
    const first = yield* callTool(call("ads__update_campaign_budget", budget(110)))
    assert.deepInclude(first, { _tag: "Ran" })
    if (first._tag === "Ran") {
      assert.strictEqual(first.notices.length, 1)
      assert.match(first.notices[0] ?? "", /Credits are low: 47 left/)
    }
  })))
})

describe("callTool: idempotency keys", () => {
  it.effect("the same key with the same call answers the first answer and runs once", () => inPipeline(Effect.gen(function* () {
    const request = call("ads__update_campaign_budget", budget(110), { idempotencyKey: "k-1" })
    const first = yield* callTool(request)
    const again = yield* callTool({ ...request, arguments: { dailyBudget: 110, campaignId: "c1", accountId: "act_1" } })
    assert.deepInclude(first, { _tag: "Ran", replayed: false })
    assert.deepInclude(again, { _tag: "Ran", replayed: true })
    if (first._tag === "Ran" && again._tag === "Ran") assert.deepStrictEqual(again.result, first.result)
    assert.strictEqual(yield* executions, 1)
    assert.strictEqual(yield* balance, 95, "charged once")
  })))

  it.effect("a queued answer replays too, with the same request id", () => inPipeline(Effect.gen(function* () {
    const request = call("ads__pause_campaign", { accountId: "act_1", campaignId: "c2" }, { idempotencyKey: "k-q", principal: principal({ writeMode: "wait" }) })
    const first = yield* callTool(request)
    const again = yield* callTool(request)
    assert.strictEqual(first._tag, "Queued")
    if (first._tag === "Queued" && again._tag === "Queued") assert.strictEqual(again.requestId, first.requestId)
    assert.strictEqual((yield* (yield* WriteRequestStore).listPending(ws)).length, 1)
  })))

  it.effect("the same key with another call is refused (422 IdempotencyKeyMismatch)", () => inPipeline(Effect.gen(function* () {
    yield* callTool(call("ads__update_campaign_budget", budget(110), { idempotencyKey: "k-2" }))
    const error = yield* refusal(callTool(call("ads__update_campaign_budget", budget(120), { idempotencyKey: "k-2" })))
    assert.strictEqual(error._tag, "IdempotencyKeyMismatch")
  })))

  it.effect("a platform refusal replays as the same 422", () => inPipeline(Effect.gen(function* () {
    const request = call("ads__update_campaign_budget", budget(0.5), { idempotencyKey: "k-r" })
    const first = yield* refusal(callTool(request))
    const again = yield* refusal(callTool(request))
    assert.deepStrictEqual(again, first)
    assert.strictEqual(yield* executions, 1)
  })))

  it.effect("a refusal before anything ran (guardrail) releases the key: the same key works once the cause is gone", () => inPipeline(Effect.gen(function* () {
    const guardrails = yield* GuardrailStore
    yield* guardrails.save({ ...noGuardrails(ws), maxBudgetChangePercent: 5 })
    const request = call("ads__update_campaign_budget", budget(110), { idempotencyKey: "k-g" })
    assert.deepInclude(yield* refusal(callTool(request)), { _tag: "GuardrailRefused", guardrail: "budget_change" })
    yield* guardrails.save(noGuardrails(ws))
    assert.deepInclude(yield* callTool(request), { _tag: "Ran" })
  })))

  it.effect("503 releases the key; the retry with the same key runs", () => inPipeline(Effect.gen(function* () {
    const platform = yield* PlatformsMemoryState
    yield* Ref.update(platform, (s) => ({ ...s, down: true }))
    const request = call("ads__update_campaign_budget", budget(110), { idempotencyKey: "k-503" })
    assert.strictEqual((yield* refusal(callTool(request)))._tag, "PlatformUnavailable")
    yield* Ref.update(platform, (s) => ({ ...s, down: false }))
    assert.deepInclude(yield* callTool(request), { _tag: "Ran", replayed: false })
  })))

  it.effect("a key held by a dead process is free after the 60-second lease, and the retry cannot apply twice", () => inPipeline(Effect.gen(function* () {
    const request = call("ads__update_campaign_budget", budget(110), { idempotencyKey: "k-dead" })
    // A process claimed the key, ran the platform call with the key's token, and died before storing the answer.
    const scope = idempotencyScopeOf(request.principal)
    const requestHash = yield* hashToolCall(request.name, request.arguments)
    yield* (yield* IdempotencyStore).claim(scope, "k-dead", requestHash, 0, 60_000)
    const platforms = yield* Platforms
    const tool = platforms.tools.find((t) => t.name === request.name)!
    yield* platforms.execute({ workspaceId: ws, tool, arguments: request.arguments, idempotencyToken: yield* (yield* Secrets).hash(`${scope}\nk-dead\n${requestHash}`) })
    assert.strictEqual((yield* refusal(callTool(request)))._tag, "IdempotencyKeyInFlight")
    yield* TestClock.adjust("59 seconds")
    assert.strictEqual((yield* refusal(callTool(request)))._tag, "IdempotencyKeyInFlight")
    yield* TestClock.adjust("1 second")
    assert.deepInclude(yield* callTool(request), { _tag: "Ran", replayed: false })
    assert.strictEqual(yield* executions, 1, "the platform answered the retry from its token: applied once")
    assert.strictEqual((yield* campaign("c1"))?.dailyBudget, 110)
  })))
})

describe("callTool: reads", () => {
  it.effect("asks the platforms for the accounts of the tool's family only, once per call", () => inPipeline(Effect.gen(function* () {
    const platforms = yield* Platforms
    const asked: Array<string | undefined> = []
    const counting = { ...platforms, accounts: (workspaceId: WorkspaceId, family?: string) => {
      asked.push(family)
      return platforms.accounts(workspaceId, family)
    } }
    const answer = yield* callTool(call("ads__list_campaigns", { accountId: "act_1" })).pipe(Effect.provideService(Platforms, counting))
    assert.strictEqual(answer._tag, "Ran")
    assert.deepStrictEqual(asked, ["ads"])
  })))
})
