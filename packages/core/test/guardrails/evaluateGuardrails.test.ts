// Guardrails: each guardrail refuses by name and says why; the protected-name pattern language.
import { changedByPercentInCents, changeExceedsPercent, changePercentText, compileNamePattern, evaluateGuardrails, matchingNamePattern, namePatternProblem, noGuardrails, startOfUtcDay, type ProposedChange, WorkspaceId } from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"

const change = (over: Partial<ProposedChange> = {}): ProposedChange => ({
  accountId: "act_1", target: { type: "campaign", id: "c1", name: "Brand – Search" }, dailyBudget: { from: 100, to: 110 },
  accountDailyBudgetBefore: null, accountDailyBudgetAfter: 160, status: null, summary: "raise", personDecision: false, ...over
})
const none = noGuardrails(WorkspaceId.make("ws"))
const refusedBy = (result: ReturnType<typeof evaluateGuardrails>) => (result._tag === "Failure" ? result.failure.guardrail : null)

describe("evaluateGuardrails", () => {
  it("no guardrails pass every change", () => {
    assert.strictEqual(refusedBy(evaluateGuardrails(none, change({ dailyBudget: { from: 0, to: 1e9 } }), 1e6)), null)
  })

  it("change cap: a budget change above the percent is refused; at the percent it passes", () => {
    const g = { ...none, maxBudgetChangePercent: 10 }
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 100, to: 110 } }), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 100, to: 90 } }), 0)), null)
    const refused = evaluateGuardrails(g, change({ dailyBudget: { from: 100, to: 111 } }), 0)
    assert.strictEqual(refusedBy(refused), "budget_change")
    if (refused._tag === "Failure") assert.match(refused.failure.reason, /11\.00 %.*limit is 10 %/)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 100, to: 80 } }), 0)), "budget_change")
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 0, to: 5 } }), 0)), "budget_change")
  })

  it("change caps compare exact decimal amounts: exactly +20 % of 129.6 passes a 20 % cap, one cent more is refused", () => {
    const g = { ...none, maxBudgetChangePercent: 20 }
    // In doubles (155.52 − 129.6) / 129.6 · 100 is 20.00000000000001: the exact amounts are exactly 20 %.
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 129.6, to: 155.52 } }), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 129.6, to: 103.68 } }), 0)), null)
    const over = evaluateGuardrails(g, change({ dailyBudget: { from: 129.6, to: 155.53 } }), 0)
    assert.strictEqual(refusedBy(over), "budget_change")
    // Just over the cap never reads as the cap itself.
    if (over._tag === "Failure") assert.include(over.failure.reason, "is 20.01 %")
    assert.strictEqual(refusedBy(evaluateGuardrails({ ...none, maxBudgetChangePercent: 12.5 }, change({ dailyBudget: { from: 0.1, to: 0.1125 } }), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails({ ...none, maxBudgetChangePercent: 12.5 }, change({ dailyBudget: { from: 0.1, to: 0.1126 } }), 0)), "budget_change")
  })

  it("exact percents: decimals as written, exponents included; the text rounds away from the cap", () => {
    assert.isFalse(changeExceedsPercent(0.3, 0.36, 20))
    assert.isTrue(changeExceedsPercent(0.3, 0.3600001, 20))
    assert.isFalse(changeExceedsPercent(1e-7, 1.2e-7, 20))
    assert.isTrue(changeExceedsPercent(1e21, 1.2000001e21, 20))
    assert.isFalse(changeExceedsPercent(5, 5, 0))
    assert.isTrue(changeExceedsPercent(0, 1, 1000))
    assert.strictEqual(changePercentText(129.6, 155.52), "20.00 %")
    assert.strictEqual(changePercentText(100, 120.001), "20.01 %")
    assert.strictEqual(changePercentText(100, 80), "20.00 %")
    assert.strictEqual(changePercentText(0, 5), "an unbounded change")
    // An amount that is no number fails closed instead of failing the call.
    assert.isTrue(changeExceedsPercent(100, Number.NaN, 20))
    assert.strictEqual(refusedBy(evaluateGuardrails({ ...none, maxBudgetChangePercent: 20 }, change({ dailyBudget: { from: 100, to: Number.NaN } }), 0)), "budget_change")
  })

  it("a change by P % in cents rounds towards the current amount: a raise down, a cut up, exact ones kept", () => {
    assert.strictEqual(changedByPercentInCents(1.03, 20), 1.23)
    assert.strictEqual(changedByPercentInCents(129.6, 20), 155.52)
    assert.strictEqual(changedByPercentInCents(180, 10), 198)
    assert.strictEqual(changedByPercentInCents(33.33, 12.5), 37.49)
    assert.strictEqual(changedByPercentInCents(1.03, -20), 0.83)
    assert.strictEqual(changedByPercentInCents(100, -100), 0)
    assert.strictEqual(changedByPercentInCents(0.01, 1), 0.01)
    for (const [from, percent] of [[1.03, 20], [1.03, -20], [33.33, 12.5], [0.07, 50], [999_999.99, 0.01]] as const) {
      assert.isFalse(changeExceedsPercent(from, changedByPercentInCents(from, percent), Math.abs(percent)), `${from} ${percent}`)
    }
  })

  it("change caps cannot be split: two +20 % steps in one UTC day are refused by the day cap, on by default with the per-change cap", () => {
    const g = { ...none, maxBudgetChangePercent: 20 }
    // The first step: nothing changed today, the base is the current value.
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 100, to: 120 } }), 0)), null)
    // The second step from 120 is +20 % of 120 but +44 % of the 100 the budget had before its first change today.
    const split = evaluateGuardrails(g, change({ dailyBudget: { from: 120, to: 144 } }), 1, 100)
    assert.strictEqual(refusedBy(split), "budget_change_per_day")
    if (split._tag === "Failure") assert.match(split.failure.reason, /100\.00 before its first change today.*44\.00 %.*limit is 20 % per budget per day/)
    // Within the day's 20 % it passes; back towards the day's first value it always passes.
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 110, to: 120 } }), 1, 100)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 120, to: 100 } }), 1, 100)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 90, to: 79 } }), 1, 100)), "budget_change_per_day")
    // Its own cap replaces the per-change one for the day; alone it caps the day too.
    assert.strictEqual(refusedBy(evaluateGuardrails({ ...g, maxBudgetChangePercentPerDay: 50 }, change({ dailyBudget: { from: 120, to: 144 } }), 1, 100)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails({ ...none, maxBudgetChangePercentPerDay: 30 }, change({ dailyBudget: { from: 120, to: 144 } }), 1, 100)), "budget_change_per_day")
    // Without any cap nothing is refused.
    assert.strictEqual(refusedBy(evaluateGuardrails(none, change({ dailyBudget: { from: 120, to: 144 } }), 1, 100)), null)
  })

  it("change cap: changes per day counts the day's changes; the next one over the limit is refused", () => {
    const g = { ...none, maxChangesPerDay: 3 }
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change(), 2)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change(), 3)), "changes_per_day")
  })

  it("spend cap: an account's daily budget above the ceiling after the change is refused; lowering is allowed", () => {
    const g = { ...none, maxDailyBudgetPerAccount: 150 }
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ accountDailyBudgetAfter: 150 }), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ accountDailyBudgetAfter: 160 }), 0)), "daily_budget_per_account")
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ accountDailyBudgetAfter: 160, dailyBudget: { from: 100, to: 90 } }), 0)), null)
    // Activating a campaign raises the account's total without a budget change: the ceiling applies.
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: null, accountDailyBudgetAfter: 170 }), 0)), "daily_budget_per_account")
  })

  it("protected names: a change to a matching campaign or product is refused, naming the pattern", () => {
    const g = { ...none, protectedNames: ["brand*"] }
    const refused = evaluateGuardrails(g, change(), 0)
    assert.strictEqual(refusedBy(refused), "protected_name")
    if (refused._tag === "Failure") assert.include(refused.failure.reason, `"brand*"`)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ target: { type: "product", id: "p", name: "Mug" } }), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ target: null }), 0)), null)
  })

  it("protected names are checked on every entity a raw write names, readable or not", () => {
    const g = { ...none, protectedNames: ["brand*"] }
    const named = [{ type: "campaign", id: "c2", name: "Generic" }, { type: "campaign", id: "c1", name: "Brand – Search" }]
    const refused = evaluateGuardrails(g, change({ target: null, dailyBudget: null, named }), 0)
    assert.strictEqual(refusedBy(refused), "protected_name")
    if (refused._tag === "Failure") assert.include(refused.failure.reason, "Brand – Search")
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ target: { type: "campaign", id: "c2", name: "Generic" }, named: [named[0]!] }), 0)), null)
  })
})

describe("protected-name patterns (case-insensitive globs over the whole name)", () => {
  it("* matches any run, ? one character, other characters themselves, case and surrounding spaces ignored", () => {
    assert.strictEqual(matchingNamePattern(["Brand*"], "brand – shopping"), "Brand*")
    assert.strictEqual(matchingNamePattern(["*black friday*"], "Q4 Black Friday push"), "*black friday*")
    assert.strictEqual(matchingNamePattern(["c?"], "C1"), "c?")
    assert.strictEqual(matchingNamePattern(["c?"], "C12"), null)
    assert.strictEqual(matchingNamePattern(["brand"], "Brand – Search"), null, "without * the whole name must match")
    assert.strictEqual(matchingNamePattern(["  Brand  "], "brand "), "  Brand  ")
  })

  it("case is folded per character, as Unicode's simple case folding does: final sigma, long s, the Kelvin sign, titlecase digraphs", () => {
    const matches = (pattern: string, name: string) => compileNamePattern(pattern).test(name)
    assert.isTrue(matches("καφες*", "ΚΑΦΕΣ – Search"), "final sigma ς against Σ")
    assert.isTrue(matches("ΚΑΦΕΣ*", "καφες – search"))
    assert.isTrue(matches("καφεσ", "καφες"), "σ and ς are one letter")
    assert.isTrue(matches("καφε?", "ΚΑΦΕΣ"), "? is still one character")
    assert.isTrue(matches("ſale*", "SALE – EU"), "long s")
    assert.isTrue(matches("\u212Aids*", "kids shoes"), "Kelvin sign")
    assert.isTrue(matches("ǅ*", "ǆungla"), "titlecase digraph")
    assert.isTrue(matches("\u00B5-budget", "\u03BC-BUDGET"), "micro sign and Greek mu")
    assert.isTrue(matches("\u1E9Eport", "ßport"), "capital sharp s")
    assert.isTrue(matches("café*", "CAFE\u0301 promo"), "NFC before folding")
    assert.isTrue(matches("\u{10400}?", "\u{10428}X"), "a letter outside the BMP (Deseret) is one character too")
    // Simple folding keeps one character for one character: ß is not "ss", so "?" keeps its meaning.
    assert.isFalse(matches("straße", "STRASSE"))
    assert.isFalse(matches("stra?e", "strasse"))
  })

  it("regular-expression characters in a pattern are literal", () => {
    assert.isTrue(compileNamePattern("sale (50%) [eu].v2").test("SALE (50%) [EU].v2"))
    assert.isFalse(compileNamePattern("a.c").test("abc"))
    assert.isFalse(compileNamePattern("a+").test("aa"))
  })

  it("the UTC day starts at midnight UTC", () => {
    const noon = Date.UTC(2026, 10, 23, 12, 0, 0)
    assert.strictEqual(startOfUtcDay(noon), Date.UTC(2026, 10, 23))
    assert.strictEqual(startOfUtcDay(Date.UTC(2026, 10, 23)), Date.UTC(2026, 10, 23))
  })

  it("protected-name patterns match in linear time: a 255-character adversarial name against an 8-star pattern takes under 10 ms", () => {
    const pattern = "*a*a*a*a*a*a*a*b*"
    const name = "a".repeat(255)
    const started = performance.now()
    assert.isNull(matchingNamePattern([pattern], name))
    assert.isNull(matchingNamePattern(["*a*a*a*a*a*a*a*a*b"], name))
    assert.isAtMost(performance.now() - started, 10)
    assert.strictEqual(matchingNamePattern([pattern], `${name}b`), pattern)
  })

  it("a protected-name pattern is capped in length and stars; an empty one is refused", () => {
    assert.isNull(namePatternProblem("*brand*search*eu*"))
    assert.match(namePatternProblem("x".repeat(201)) ?? "", /at most 200 characters/)
    assert.match(namePatternProblem("*".repeat(17)) ?? "", /at most 16 "\*"/)
    assert.match(namePatternProblem("   ") ?? "", /empty/)
  })

  it("spend cap: pausing, removing or deleting on an account above the ceiling is allowed; what raises the total is refused", () => {
    const g = { ...none, maxDailyBudgetPerAccount: 100 }
    const statusChange = (from: string, to: string, before: number, after: number) =>
      change({ dailyBudget: null, status: { from, to }, accountDailyBudgetBefore: before, accountDailyBudgetAfter: after })
    assert.strictEqual(refusedBy(evaluateGuardrails(g, statusChange("ENABLED", "PAUSED", 230, 150), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, statusChange("ENABLED", "REMOVED", 230, 150), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, statusChange("ACTIVE", "DELETED", 230, 150), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, statusChange("PAUSED", "ENABLED", 150, 230), 0)), "daily_budget_per_account")
    // A change that keeps the total (a paused campaign's budget) on an over-ceiling account raises nothing.
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 10, to: 20 }, accountDailyBudgetBefore: 150, accountDailyBudgetAfter: 150 }), 0)), null)
    assert.strictEqual(refusedBy(evaluateGuardrails(g, change({ dailyBudget: { from: 10, to: 20 }, accountDailyBudgetBefore: 150, accountDailyBudgetAfter: 160 }), 0)), "daily_budget_per_account")
  })
})
