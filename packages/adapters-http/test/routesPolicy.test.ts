// The policy a host gives to adgate's routes only (adgateRoutes().pipe(Layer.provide(adgatePolicy(…))), as a host
// serving them with HttpRouter.toWebHandler writes it): the REST handlers read it, not the defaults. They run in the
// request's own context (withPorts), which then lacks the policy's references; a reference is never a requirement,
// so nothing in the types said that the host's limits were being dropped for the defaults.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Layer } from "effect"
import { defaultInputLimits, defaultRateLimitPolicy, InputLimits, RateLimits } from "@adgate/core"
import { createKey, restClient } from "./rest/restClient.ts"
import { startTestServer, type TestServer } from "./support/testServer.ts"

const routesRateLimit = { count: 7, windowMs: 60_000 }
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    routesOnly: Layer.mergeAll(
      Layer.succeed(InputLimits, { ...defaultInputLimits, maxJsonDepth: 3, maxSearchQueryLength: 10 }),
      Layer.succeed(RateLimits, {
        ...defaultRateLimitPolicy,
        limits: { ...defaultRateLimitPolicy.limits, api_requests_per_key: routesRateLimit }
      })
    )
  })
})
afterAll(async () => {
  await server?.close()
})

describe("a policy given to the routes only", () => {
  it("REST refuses a body nested deeper than the routes' InputLimits, and a search text longer than theirs", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read", "accounts:read"] }))
    const deep = await api.post("/tools/ads__list_campaigns", { accountId: "act_paid", filter: { a: { b: { c: {} } } } })
    expect(deep.status).toBe(400)
    expect((await api.get(`/tools?q=${"a".repeat(11)}`)).status).toBe(400)
  })

  it("REST's /me reports the routes' rate limit", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    const me = await api.get("/me")
    expect(me.status).toBe(200)
    expect(me.body.rateLimit).toEqual({ requests: routesRateLimit.count, windowSeconds: 60 })
  })
})
