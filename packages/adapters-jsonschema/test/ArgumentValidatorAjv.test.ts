// The Ajv ArgumentValidator: draft 2020-12 keywords, every problem with its JSON Pointer, compiled schemas reused.
import { ArgumentValidator } from "@adgate/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { ArgumentValidatorAjv } from "../src/index.ts"

const schema = {
  type: "object",
  properties: {
    accountId: { type: "string", minLength: 1 },
    dailyBudget: { type: "number", exclusiveMinimum: 0 },
    "a/b": { type: "string" },
    dates: { type: "array", prefixItems: [{ type: "string" }, { type: "string" }], items: false },
    since: { type: "string", format: "date", "x-unit": "day" }
  },
  required: ["accountId", "dailyBudget"],
  additionalProperties: false
}

describe("ArgumentValidatorAjv", () => {
  it.effect("valid arguments have no problems; unknown annotations and formats do not fail the schema", () =>
    Effect.gen(function* () {
      const validator = yield* ArgumentValidator
      assert.deepStrictEqual(yield* validator.validate(schema, { accountId: "a1", dailyBudget: 10, since: "whenever" }), [])
    }).pipe(Effect.provide(ArgumentValidatorAjv)))

  it.effect("every problem is listed with the path of the argument it is about (422 lists them all)", () =>
    Effect.gen(function* () {
      const validator = yield* ArgumentValidator
      const problems = yield* validator.validate(schema, { dailyBudget: -1, extra: true, "a/b": 3 })
      const paths = problems.map((p) => p.path).sort()
      assert.deepStrictEqual(paths, ["/accountId", "/a~1b", "/dailyBudget", "/extra"])
      assert.strictEqual(problems.find((p) => p.path === "/accountId")?.message, "is required")
      assert.match(problems.find((p) => p.path === "/dailyBudget")?.message ?? "", /must be > 0/)
    }).pipe(Effect.provide(ArgumentValidatorAjv)))

  it.effect("draft 2020-12 keywords apply (prefixItems with items: false refuses a third date)", () =>
    Effect.gen(function* () {
      const validator = yield* ArgumentValidator
      const problems = yield* validator.validate(schema, { accountId: "a", dailyBudget: 1, dates: ["2026-01-01", "2026-01-07", "x"] })
      assert.deepStrictEqual(problems.map((p) => p.path), ["/dates"])
      // The same schema again (a fresh, equal object) is served by the compiled validator and answers alike.
      assert.deepStrictEqual(yield* validator.validate(structuredClone(schema), { accountId: "a", dailyBudget: 1 }), [])
    }).pipe(Effect.provide(ArgumentValidatorAjv)))

  it.effect("multipleOf 0.01 takes every cent amount as a client sends it (JSON text), and refuses a fraction of a cent", () =>
    Effect.gen(function* () {
      const validator = yield* ArgumentValidator
      // The platforms' budget arguments: 0 < dailyBudget ≤ 10^6, in cents.
      const budget = { type: "object", properties: { dailyBudget: { type: "number", exclusiveMinimum: 0, maximum: 1_000_000, multipleOf: 0.01 } } }
      const refusedCents: Array<number> = []
      // Every cent amount up to 10,000.00 exactly, then random cents up to 10^6 (0.07, 0.29 and 132.57 were refused before).
      for (let cents = 1; cents <= 1_000_000; cents++) {
        const amount = JSON.parse((cents / 100).toFixed(2)) as number
        if ((yield* validator.validate(budget, { dailyBudget: amount })).length > 0) refusedCents.push(amount)
      }
      assert.deepStrictEqual(refusedCents.slice(0, 5), [], `${refusedCents.length} cent amounts refused`)
      fc.assert(fc.property(fc.integer({ min: 1, max: 100_000_000 }), (cents) => {
        const sent = { dailyBudget: JSON.parse((cents / 100).toFixed(2)) as number }
        assert.deepStrictEqual(Effect.runSync(validator.validate(budget, sent)), [], JSON.stringify(sent))
      }), { numRuns: 20_000 })
      for (const amount of [0.015, 132.575, 999_999.995, 0.001]) {
        const problems = yield* validator.validate(budget, { dailyBudget: amount })
        assert.deepStrictEqual(problems.map((p) => [p.path, p.message]), [["/dailyBudget", "must be multiple of 0.01"]], String(amount))
      }
    }).pipe(Effect.provide(ArgumentValidatorAjv)))
})
