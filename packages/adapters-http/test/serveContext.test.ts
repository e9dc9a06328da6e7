// What a request's context starts from (serve.ts): the server's services with room for what a request adds, so that
// Effect does not copy the whole service map once per request (bench/README.md round 7b).
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { requestContextDepth, serveHttp } from "../src/serve.ts"

/** The fields of Effect's context that say how many services may be added before the map is copied. */
type Room = { readonly depth: number; readonly maxDepth: number }

describe("serveHttp's request context", () => {
  it.effect("has room for a request's services: they are added on top of the server's map, not copied with it", () =>
    Effect.gen(function* () {
      const seen: Array<Room> = []
      const probe = HttpRouter.use((router) =>
        router.add("GET", "/probe", Effect.withFiber((fiber) => {
          const context = fiber.context as unknown as Room
          seen.push({ depth: context.depth, maxDepth: context.maxDepth })
          return Effect.succeed(HttpServerResponse.text("ok"))
        })))
      const served = yield* Layer.build(serveHttp({ port: 0, host: "127.0.0.1", app: probe, drainSeconds: 0 }))
      const address = Context.get(served, HttpServer.HttpServer).address as { readonly port: number }
      for (let i = 0; i < 2; i++) {
        const answer = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}/probe`))
        assert.strictEqual(answer.status, 200)
      }
      assert.strictEqual(seen.length, 2)
      for (const room of seen) {
        assert.strictEqual(room.maxDepth, requestContextDepth)
        // The request's services (its request, scope, route …) sit on the server's map: nothing was copied yet.
        assert.isAbove(room.depth, 0)
        assert.isBelow(room.depth, requestContextDepth)
      }
    }).pipe(Effect.scoped), { timeout: 10_000 })
})
