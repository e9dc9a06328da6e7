// Credits kept to six decimals (credits/CreditEntry.ts roundCredits): what every ledger and the Directory store.
import { assert, describe, it } from "@effect/vitest"
import { roundCredits } from "@adgate/core"

describe("roundCredits", () => {
  it("keeps six decimals: float noise goes, a clean value stays", () => {
    assert.strictEqual(roundCredits(10.3 - 3), 7.3)
    assert.strictEqual(roundCredits(0.0001245), 0.000124)
    assert.strictEqual(roundCredits(1234567890.123456), 1234567890.123456)
    assert.strictEqual(roundCredits(0), 0)
  })

  it("leaves a balance too large to scale as it is, never Infinity (unlimited credits)", () => {
    assert.strictEqual(roundCredits(1e303), 1e303)
    assert.strictEqual(roundCredits(Number.MAX_VALUE), Number.MAX_VALUE)
  })
})
