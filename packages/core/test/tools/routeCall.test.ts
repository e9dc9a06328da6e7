// The routing table (spec §What the service does 6): read runs now; a write runs now only under "apply ordinary
// changes at once" and when it is not a person's decision; otherwise it waits, with its reason.
import { type ProposedChange, routeCall, type Tool } from "@adgate/core"
import { memoryTools } from "@adgate/core/testing"
import { assert, describe, it } from "@effect/vitest"

const tool = (name: string): Tool => memoryTools.find((t) => t.name === name)!
const budget = tool("ads__update_campaign_budget")
const enable = tool("ads__enable_campaign")
const raw = tool("ads__raw")
const list = tool("ads__list_campaigns")
const preview = (personDecision: boolean): ProposedChange => ({
  accountId: "act_1", target: null, dailyBudget: null, accountDailyBudgetBefore: null, accountDailyBudgetAfter: null, status: null, summary: "x", personDecision
})
/** An ordinary change the preview can tell: a campaign's budget. */
const ordinary: ProposedChange = {
  ...preview(false), target: { type: "campaign", id: "c2", name: "Generic" }, dailyBudget: { from: 50, to: 55 }
}

describe("routeCall", () => {
  const table = [
    ["a read, wait mode", list, "read", "wait", { _tag: "RunNow" }],
    ["a read, apply mode", list, "read", "apply", { _tag: "RunNow" }],
    ["an ordinary write, wait mode", budget, "write", "wait", { _tag: "Queue", reason: "approval" }],
    ["an ordinary write, apply mode", budget, "write", "apply", { _tag: "RunNow" }],
    ["a person's decision, wait mode", enable, "write", "wait", { _tag: "Queue", reason: "person_decision" }],
    ["a person's decision, apply mode", enable, "write", "apply", { _tag: "Queue", reason: "person_decision" }],
    ["a raw GET (a read), wait mode", raw, "read", "wait", { _tag: "RunNow" }],
    ["a raw POST (a write), wait mode: queued by default", raw, "write", "wait", { _tag: "Queue", reason: "approval" }],
    ["a raw POST meaning an ordinary change, apply mode", raw, "write", "apply", { _tag: "RunNow" }]
  ] as const
  for (const [name, t, kind, mode, route] of table) {
    it(`${name} → ${route._tag === "RunNow" ? "runs now" : `queued (${route.reason})`}`, () => {
      assert.deepStrictEqual(routeCall(t, kind, mode, kind === "read" ? null : ordinary), route)
    })
  }

  // F1: a raw call that means a delete, an activation or website code is a person's decision whatever the tool says.
  it("deletes, activations, code for a website and platform-marked changes always wait for a person: a raw write the preview marks a person's decision is queued in apply mode", () => {
    assert.deepStrictEqual(routeCall(raw, "write", "apply", preview(true)), { _tag: "Queue", reason: "person_decision" })
    assert.deepStrictEqual(routeCall(raw, "write", "wait", preview(true)), { _tag: "Queue", reason: "person_decision" })
  })

  it("a write without a preview waits for a person (fail closed)", () => {
    assert.deepStrictEqual(routeCall(budget, "write", "apply", null), { _tag: "Queue", reason: "person_decision" })
  })

  it("activation hidden in a raw write: a write whose preview sets a status to active waits for a person, even from apply-at-once", () => {
    for (const [from, to] of [["PAUSED", "ACTIVE"], ["PAUSED", "ENABLED"], ["draft", "active"]] as const) {
      const hidden: ProposedChange = { ...ordinary, status: { from, to } }
      assert.deepStrictEqual(routeCall(raw, "write", "apply", hidden), { _tag: "Queue", reason: "person_decision" })
      assert.deepStrictEqual(routeCall(budget, "write", "apply", hidden), { _tag: "Queue", reason: "person_decision" })
    }
    // A pause, or a status already active, is no activation.
    assert.deepStrictEqual(routeCall(raw, "write", "apply", { ...ordinary, status: { from: "ACTIVE", to: "PAUSED" } }), { _tag: "RunNow" })
    assert.deepStrictEqual(routeCall(raw, "write", "apply", { ...ordinary, status: { from: "ACTIVE", to: "ACTIVE" } }), { _tag: "RunNow" })
  })

  it("a raw write whose preview cannot tell what it changes is a person's decision, whatever the platform marks", () => {
    assert.deepStrictEqual(routeCall(raw, "write", "apply", preview(false)), { _tag: "Queue", reason: "person_decision" })
    assert.deepStrictEqual(routeCall(raw, "write", "wait", preview(false)), { _tag: "Queue", reason: "person_decision" })
    // A structured tool's call is judged by the tool: its preview names its arguments' object.
    assert.deepStrictEqual(routeCall(budget, "write", "apply", preview(false)), { _tag: "RunNow" })
  })
})
