// What context a request's handler runs in, seen from a port it calls: each call notes the request in its context and
// adds a finalizer to its scope (as a handler holding a resource does, Effect.addFinalizer). A handler in its request's
// own context (withPorts, @adgate/answers) has both from the request, and the finalizer runs when the request ends; one
// in the routes' build context has no request, and a finalizer on the server's scope, run only when the server stops.
import { Context, Effect } from "effect"
import { HttpServerRequest } from "effect/http"

export interface ProbedCall {
  /** The port's method. */
  readonly method: string
  /** The URL (path and query) of the request in the call's context; null when it has none. */
  readonly url: string | null
  /** Whether the finalizer the call added has run. */
  ended: boolean
}

export interface RequestProbe {
  /** `shape` with each of its methods that answer an effect watched while the probe is on. */
  readonly watch: <S extends object>(shape: S) => S
  /**
   * The calls made while `body` runs, once each one's finalizer has run or, for those that never end with their
   * request, after a grace of `graceMs` (the request scope closes as the answer is written, so usually at once).
   */
  readonly during: (body: () => Promise<unknown>, graceMs?: number) => Promise<ReadonlyArray<ProbedCall>>
}

export const makeRequestProbe = (): RequestProbe => {
  let on = false
  let calls: Array<ProbedCall> = []

  const observed = <A, E, R>(method: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => {
      if (!on) return effect
      const request = Context.getOrUndefined(fiber.context as Context.Context<HttpServerRequest.HttpServerRequest>, HttpServerRequest.HttpServerRequest)
      const call: ProbedCall = { method, url: request?.url ?? null, ended: false }
      calls.push(call)
      // A port's effects need no scope by their type; the fiber that runs them has one all the same (its request's, or
      // the one its context was given), the scope Effect.addFinalizer adds to.
      const finalizer = Effect.addFinalizer(() => Effect.sync(() => { call.ended = true })) as Effect.Effect<void>
      return Effect.andThen(finalizer, effect)
    })

  const watch = <S extends object>(shape: S): S =>
    Object.fromEntries(Object.entries(shape).map(([name, value]) => [
      name,
      typeof value === "function"
        ? (...args: ReadonlyArray<unknown>) => {
          const answer: unknown = value.apply(shape, args)
          return Effect.isEffect(answer) ? observed(name, answer) : answer
        }
        : value
    ])) as S

  const during = async (body: () => Promise<unknown>, graceMs = 3_000) => {
    calls = []
    on = true
    try {
      await body()
    } finally {
      on = false
    }
    const seen = calls
    for (const deadline = Date.now() + graceMs; seen.some((c) => !c.ended) && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return seen
  }

  return { watch, during }
}
