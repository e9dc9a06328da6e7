// What one token request costs the database (issue 11, bench/README.md §Findings): every statement the core's token
// endpoint sends for an exchange and for a refresh, counted at the PGlite driver (the statements are the ones sent
// to PostgreSQL: one compiler). A refresh writes no client row in steady state and reads each row once.
import { handleTokenRequest } from "@adgate/core"
import { PGlite } from "@electric-sql/pglite"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { vi } from "vitest"
import { pgliteDatabase } from "./databases.ts"
import { refreshGrant, seedCode, TokenWorld } from "./tokenWorld.ts"

/** Runs `effect`, answering its result and every SQL text sent to PGlite meanwhile, whitespace collapsed. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const spy = vi.spyOn(PGlite.prototype, "query")
    const texts: Array<string> = []
    // Read before restoring: mockRestore forgets the calls.
    const result = yield* effect.pipe(Effect.ensuring(Effect.sync(() => {
      texts.push(...spy.mock.calls.map(([text]) => String(text).replace(/\s+/g, " ").trim()))
      spy.mockRestore()
    })))
    return { result, texts }
  })

const count = (texts: ReadonlyArray<string>, pattern: RegExp) => texts.filter((t) => pattern.test(t)).length

describe("statements per token request (issue 11)", () => {
  layer(TokenWorld.pipe(Layer.provideMerge(pgliteDatabase())), { timeout: "60 seconds" })("PGlite", (it) => {
    it.effect("a refresh: no UPDATE of the client, the client and the connection each read once", () =>
      Effect.gen(function* () {
        const { clientId, grant } = yield* seedCode
        const exchange = yield* statementsOf(handleTokenRequest({ params: grant(), basic: null }))
        // The first token of a client records lastTokenAt, once.
        assert.strictEqual(count(exchange.texts, /^UPDATE clients/), 1, exchange.texts.join("\n"))
        const refresh = yield* statementsOf(handleTokenRequest({ params: refreshGrant(clientId, exchange.result.refresh_token), basic: null }))
        const texts = refresh.texts
        assert.strictEqual(count(texts, /^UPDATE clients/), 0, texts.join("\n"))
        assert.strictEqual(count(texts, /FROM clients/), 1, texts.join("\n"))
        assert.strictEqual(count(texts, /FROM connection_refresh_tokens/), 1, texts.join("\n"))
        assert.isAtMost(texts.length, 6, texts.join("\n"))
        // A second refresh in steady state costs the same.
        const again = yield* statementsOf(handleTokenRequest({ params: refreshGrant(clientId, refresh.result.refresh_token), basic: null }))
        assert.strictEqual(again.texts.length, texts.length, again.texts.join("\n"))
      }))
  })
})
