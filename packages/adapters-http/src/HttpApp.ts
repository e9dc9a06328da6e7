// The whole HTTP application as one Layer: health, page assets, the people pages, the OAuth endpoints (oauth/),
// the REST API v1 (rest/), the security middleware with the 1 MB body limit (spec §Errors 413) and the client address every limiter counts.
// Needs the core ports and the Issuer; RateLimits and TrustedProxies are taken from the context when provided.
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OAuthRoutes } from "./oauth/index.ts"
import { AssetRoutes } from "./pages/AssetRoutes.ts"
import { ApprovalsRoutes } from "./pages/approvals/ApprovalsRoutes.ts"
import { AuditRoutes } from "./pages/audit/AuditRoutes.ts"
import { MailboxRoutes } from "./mail/MailboxRoutes.ts"
import { ApiMcpRoutes } from "./pages/ApiMcpRoutes.ts"
import { OwnAppsRoutes } from "./pages/OwnAppsRoutes.ts"
import { AccountRoutes } from "./pages/AccountRoutes.ts"
import { ApiKeysRoutes } from "./pages/ApiKeysRoutes.ts"
import { SettingsRoutes } from "./pages/SettingsRoutes.ts"
import { People } from "./people/People.ts"
import { PeopleRoutes } from "./people/PeopleRoutes.ts"
import { RestRoutes } from "./rest/RestRoutes.ts"
import { SecurityMiddleware } from "./security.ts"
import { ClientAddressMiddleware } from "./ClientAddressMiddleware.ts"
import { ReadinessRoutes, storesProbe } from "./readiness.ts"

/**
 * GET /health: 200 `{"status":"ok"}` when the stores answer a trivial read, 503 `{"status":"unavailable"}` when
 * they do not, or not within 5 seconds (a load balancer takes the process out of rotation; nothing else is said
 * about why).
 */
export const HealthRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const storesAnswer = yield* storesProbe
    const noStore = { "cache-control": "no-store" }
    yield* router.add("GET", "/health", () =>
      storesAnswer.pipe(
        // A hung database is as unavailable as a failing one.
        Effect.timeout("5 seconds"),
        Effect.as(HttpServerResponse.jsonUnsafe({ status: "ok" }, { headers: noStore })),
        Effect.catch(() =>
          Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "unavailable" }, { status: 503, headers: { ...noStore, "retry-after": "5" } })))
      ))
  })
)

export const makeHttpApp = () =>
  Layer.mergeAll(
    HealthRoutes, ReadinessRoutes, AssetRoutes, PeopleRoutes, ApiMcpRoutes, OAuthRoutes, RestRoutes, ApprovalsRoutes, AuditRoutes, MailboxRoutes,
    OwnAppsRoutes, ApiKeysRoutes, SettingsRoutes, AccountRoutes, SecurityMiddleware, ClientAddressMiddleware
  ).pipe(
    Layer.provide(People.layer)
  )

export const HttpApp = makeHttpApp()

