// How the OAuth routes give their handlers the core ports (CorePorts.ts withCorePorts): a request whose context
// already holds the ports the routes were built with runs in that context as it is, no context built for it; any
// other gets the routes' ports (bench/README.md round 8).
import { assert, describe, it } from "@effect/vitest"
import { ClientStore, GrantReader } from "@adgate/core"
import { Context, Effect, Scope } from "effect"
import { corePortServices, type CorePorts, withCorePorts } from "../../src/oauth/CorePorts.ts"

/** A context of every core port, each a distinct object (the routes only compare and pass them on). */
const portsContext = (label: string) =>
  Context.makeUnsafe<CorePorts>(new Map(corePortServices.map((service) => [service.key, { label, port: service.key }])))

const seenContext = Effect.withFiber((fiber) => Effect.succeed(fiber.context))

describe("withCorePorts", () => {
  it.effect("builds no context for a request that already holds the routes' ports: the handler sees the request's own", () => {
    const built = portsContext("built")
    return Effect.gen(function* () {
      const request = yield* Effect.context<never>()
      const seen = yield* withCorePorts(built)(seenContext)
      // The very context the request runs in (its scope, its services), not a merged copy.
      assert.strictEqual(seen, request)
      assert.strictEqual(Context.get(seen as Context.Context<CorePorts>, GrantReader), Context.get(built, GrantReader))
    }).pipe(Effect.provideContext(built as Context.Context<never>))
  })

  it.effect("gives the routes' ports to a request that lacks them or holds others, and keeps the request's scope", () =>
    Effect.gen(function* () {
      const built = portsContext("built")
      const provided = withCorePorts(built)
      const requestScope = yield* Scope.make()
      // No ports at all (a host that provided them to the application layer only).
      const bare = yield* provided(seenContext).pipe(Effect.provideService(Scope.Scope, requestScope))
      for (const service of corePortServices)
        assert.strictEqual(Context.getUnsafe(bare as Context.Context<CorePorts>, service as Context.Key<CorePorts, unknown>), Context.get(built, service as Context.Key<CorePorts, unknown>))
      assert.strictEqual(Context.get(bare as Context.Context<Scope.Scope>, Scope.Scope), requestScope)
      // One port replaced in the request (a middleware's): the handler still sees the routes' own.
      const other = yield* provided(seenContext).pipe(
        Effect.provideContext(Context.add(built as Context.Context<never>, ClientStore, { other: true } as never)))
      assert.strictEqual(Context.get(other as Context.Context<CorePorts>, ClientStore), Context.get(built, ClientStore))
    }))
})
