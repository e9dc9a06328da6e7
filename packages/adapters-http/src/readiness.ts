// Liveness and readiness for a load balancer or an orchestrator (docs/operations.md). `/health/live` says the process
// answers at all (200, nothing read); `/health/ready` says whether it should be sent traffic: 503 with the reason
// while the stores cannot answer ("database"), the database lacks a migration this code needs ("migrations"), or
// the process has been asked to stop ("shutting_down": SIGTERM, so the balancer drains it before the listener closes).
import { Context, Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { Directory, PeopleStore, SecretHash, WorkspaceId } from "@adgate/core"

export interface ReadinessChecks {
  /** True once the process has been asked to stop. */
  readonly shuttingDown: () => boolean
  /** Told of every readiness probe, so the process knows whether a load balancer watches it (main.ts, the drain). */
  readonly probed?: () => void
  /** How many migrations this code ships that the database has not applied; a failure counts as "database". */
  readonly pendingMigrations: Effect.Effect<number, unknown>
}

/** The server provides the real checks; without them (tests, the in-memory stores) nothing is pending or stopping. */
export const Readiness = Context.Reference<ReadinessChecks>("adapters-http/Readiness", {
  defaultValue: () => ({ shuttingDown: () => false, pendingMigrations: Effect.succeed(0) })
})

/**
 * A flag the process sets once, on SIGTERM or SIGINT; readiness reads it on every probe and notes when the last probe
 * came (`lastProbeAt`, epoch ms; 0 before the first), which tells the shutdown whether a load balancer is watching.
 */
export const makeShutdownFlag = () => {
  let stopping = false
  let lastProbe = 0
  return {
    set: (): void => { stopping = true },
    isSet: (): boolean => stopping,
    probed: (): void => { lastProbe = Date.now() },
    lastProbeAt: (): number => lastProbe
  }
}

export type NotReadyReason = "database" | "migrations" | "shutting_down"

const noStore = { "cache-control": "no-store" }

const notReady = (reason: NotReadyReason) =>
  HttpServerResponse.jsonUnsafe({ status: "unavailable", reason }, { status: 503, headers: { ...noStore, "retry-after": "5" } })

/**
 * The trivial reads that say the stores answer, for /health and /health/ready: a workspace id nobody has and a hash
 * no session has (the probe is a read, not a sign-in).
 */
export const storesProbe = Effect.gen(function* () {
  const directory = yield* Directory
  const people = yield* PeopleStore
  const noSession = SecretHash.make("health-probe")
  return Effect.all([directory.workspace(WorkspaceId.make("ws_health_probe")), people.findSession(noSession)])
})

/** GET /health/live and GET /health/ready. */
export const ReadinessRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const checks = yield* Readiness
    const storesAnswer = yield* storesProbe
    yield* router.add("GET", "/health/live", () => Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" }, { headers: noStore })))
    // The handler is an effect made once, with the router, and run per request.
    yield* router.add("GET", "/health/ready",
      Effect.gen(function* () {
        checks.probed?.()
        if (checks.shuttingDown()) return notReady("shutting_down")
        // A hung database is as unavailable as a failing one.
        const pending = yield* Effect.andThen(storesAnswer, checks.pendingMigrations).pipe(Effect.timeout("5 seconds"), Effect.option)
        if (pending._tag === "None") return yield* Effect.logWarning("not ready: the database does not answer").pipe(
          Effect.annotateLogs({ port: "database" }),
          Effect.as(notReady("database"))
        )
        if (pending.value > 0) return yield* Effect.logWarning(`not ready: ${pending.value} migrations pending`).pipe(Effect.as(notReady("migrations")))
        return HttpServerResponse.jsonUnsafe({ status: "ok" }, { headers: noStore })
      }))
  })
)
