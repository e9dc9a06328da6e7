// How a request's handler gets the ports its routes were built with (withPorts): a request whose context already holds
// those very ports runs in that context as it is, no context built for it; any other gets the ports it lacks added to
// its own context, and nothing else of the build's but its policy and where its logs and spans go: its scope stays its
// own, so a finalizer the handler adds runs when the request ends. The routes' build context provided whole, as before,
// put the build's scope in its place.
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Logger, References, Scope, Tracer } from "effect"
import { withPorts } from "../src/index.ts"

class Clients extends Context.Service<Clients, { readonly label: string }>()("test/Clients") {}
class Codes extends Context.Service<Codes, { readonly label: string }>()("test/Codes") {}
/** A service of the build's context that is no port of these routes. */
class Elsewhere extends Context.Service<Elsewhere, { readonly label: string }>()("test/Elsewhere") {}
/** The request itself, as the HTTP server adds it to a request's context. */
class Request extends Context.Service<Request, { readonly url: string }>()("test/Request") {}

const services = [Clients, Codes] as const
const built = (scope: Scope.Scope) =>
  Context.make(Clients, { label: "built" }).pipe(
    Context.add(Codes, { label: "built" }), Context.add(Elsewhere, { label: "built" }), Context.add(Scope.Scope, scope))

const seenContext = Effect.withFiber((fiber) => Effect.succeed(fiber.context))

describe("withPorts", () => {
  it.effect("builds no context for a request that already holds the routes' ports: the handler sees the request's own", () =>
    Effect.gen(function* () {
      const build = built(yield* Scope.make())
      yield* Effect.gen(function* () {
        const request = yield* Effect.context<never>()
        const seen = yield* withPorts(services, build)(seenContext)
        // The very context the request runs in (its scope, its services), not a copy with the ports put in again.
        assert.strictEqual(seen, request)
        assert.strictEqual(withPorts(services, build).into(request), request)
      }).pipe(Effect.provideContext(Context.add(build, Request, { url: "/a" })))
    }))

  it.effect("adds the ports a request lacks or holds others of, and nothing else of the build: its request and scope stay its own", () =>
    Effect.gen(function* () {
      const build = built(yield* Scope.make())
      const requestScope = yield* Scope.make()
      const ports = withPorts(services, build)
      const bare = Context.make(Request, { url: "/b" }).pipe(Context.add(Scope.Scope, requestScope))
      const seen = yield* ports(seenContext).pipe(Effect.provideContext(bare))
      assert.strictEqual(Context.get(seen as Context.Context<Clients>, Clients), Context.get(build, Clients))
      assert.strictEqual(Context.get(seen as Context.Context<Codes>, Codes), Context.get(build, Codes))
      assert.strictEqual(Context.get(seen as Context.Context<Request>, Request), Context.get(bare, Request))
      assert.strictEqual(Context.get(seen as Context.Context<Scope.Scope>, Scope.Scope), requestScope)
      assert.isUndefined(Context.getOrUndefined(seen as Context.Context<Elsewhere>, Elsewhere))
      // One port replaced in the request (a middleware's): the handler sees the routes' own, the request the rest.
      const other = Context.add(bare, Clients, { label: "other" }).pipe(Context.add(Codes, Context.get(build, Codes)))
      const seenOther = ports.into(other)
      assert.strictEqual(Context.get(seenOther, Clients), Context.get(build, Clients))
      assert.strictEqual(Context.get(seenOther, Request), Context.get(bare, Request))
    }))

  it.effect("a finalizer the handler adds runs when the request's scope closes, not the build's", () =>
    Effect.gen(function* () {
      const buildScope = yield* Scope.make()
      const ports = withPorts(services, built(buildScope))
      const ended: Array<string> = []
      const handler = Effect.addFinalizer(() => Effect.sync(() => ended.push("request's resource")))
      for (const held of [false, true]) {
        ended.length = 0
        const requestScope = yield* Scope.make()
        const base = held ? built(buildScope) : Context.empty()
        yield* ports(handler).pipe(Effect.provideContext(Context.add(base, Scope.Scope, requestScope)))
        assert.deepStrictEqual(ended, [])
        yield* Scope.close(requestScope, Exit.void)
        assert.deepStrictEqual(ended, ["request's resource"])
      }
    }))

  it("carries where logs and spans go when the build context holds it: the routes' logger and tracer replace the request's, its log annotations stay", () => {
    const routesLoggers = new Set([Logger.make(() => undefined)])
    const routesTracer = Tracer.make({ span: (options) => Tracer.nativeTracer.span(options) })
    const build = built(Scope.makeUnsafe()).pipe(
      Context.add(References.CurrentLoggers, routesLoggers), Context.add(Tracer.Tracer, routesTracer),
      // As an OpenTelemetry layer gives it: the default's value, which the request reads already.
      Context.add(References.TracerEnabled, true),
      Context.add(References.CurrentLogAnnotations, { built: "yes" }))
    const ports = withPorts(services, build)
    const requestAnnotations = { requestId: "r-1" }
    const request = Context.make(Request, { url: "/c" }).pipe(
      Context.add(References.CurrentLoggers, new Set([Logger.make(() => undefined)])),
      Context.add(References.CurrentLogAnnotations, requestAnnotations))
    const seen = ports.into(request)
    assert.strictEqual(Context.get(seen, References.CurrentLoggers), routesLoggers)
    assert.strictEqual(Context.get(seen, Tracer.Tracer), routesTracer)
    assert.isUndefined(Context.getOrUndefined(seen, References.TracerEnabled))
    assert.strictEqual(Context.get(seen, References.CurrentLogAnnotations), requestAnnotations)
    // A request already holding the routes' own (the server's context is the build's) runs as it is.
    const same = Context.add(build, Request, { url: "/d" })
    assert.strictEqual(ports.into(same), same)
    // A build that holds none of them adds none: the request's (the server's) stay.
    assert.strictEqual(Context.get(withPorts(services, built(Scope.makeUnsafe())).into(request), References.CurrentLoggers),
      Context.get(request, References.CurrentLoggers))
  })
})
