// The client id the token endpoint reads early, with the grant: only for a request that passes the checks
// authenticateClient makes before its look-up, so those refusals never depend on the store.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { claimedClientId } from "@adgate/core"
import { readParams } from "../../src/token/TokenParams.ts"
import { form } from "./world.ts"

const claimed = (params: Readonly<Record<string, string>>, basic: Parameters<typeof claimedClientId>[1]) =>
  Effect.map(readParams(form(params)), (p) => claimedClientId(p, basic))

describe("claimedClientId", () => {
  it.effect("the Basic client id first, else the body's", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* claimed({ client_id: "apc_body" }, null), "apc_body")
      assert.strictEqual(yield* claimed({}, { clientId: "apc_basic", clientSecret: "s" }), "apc_basic")
      assert.strictEqual(yield* claimed({ client_id: "apc_basic" }, { clientId: "apc_basic", clientSecret: "s" }), "apc_basic")
      // An empty Basic password is no secret: the body may then carry one.
      assert.strictEqual(yield* claimed({ client_secret: "s" }, { clientId: "apc_basic", clientSecret: "" }), "apc_basic")
    }))

  it.effect("none for a request refused before the look-up: undecodable Basic, two secrets, two ids, no id", () =>
    Effect.gen(function* () {
      assert.isNull(yield* claimed({ client_id: "apc_body" }, "malformed"))
      assert.isNull(yield* claimed({ client_secret: "s2" }, { clientId: "apc_basic", clientSecret: "s" }))
      assert.isNull(yield* claimed({ client_id: "apc_other" }, { clientId: "apc_basic", clientSecret: "s" }))
      assert.isNull(yield* claimed({}, null))
      assert.isNull(yield* claimed({ client_id: "" }, null))
    }))
})
