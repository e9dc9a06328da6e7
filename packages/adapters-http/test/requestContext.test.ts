// The context a request's handler runs in on REST and the pages (withPorts, @adgate/answers): the request's own, with
// the ports its routes were built with added where it lacks them. A finalizer the handler adds runs when its request
// ends, and the request it reads is its own. With the routes' whole build context provided on every request, as before,
// the build's scope replaced the request's: such a finalizer ran only when the server stopped.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Layer } from "effect"
import type { HttpRouter } from "effect/http"
import type { HttpApp } from "../src/HttpApp.ts"
import { pagePaths } from "../src/pages/pagePaths.ts"
import { browser, type Browser } from "./pages/pageServers.ts"
import { createKey, restClient } from "./rest/restClient.ts"
import { makeRequestProbe, type ProbedCall } from "./support/requestProbe.ts"
import { cookiesFrom, csrfTokenIn, startTestServer, type TestServer } from "./support/testServer.ts"

/**
 * What a route leaves to the request to provide (HttpRouter's `Request<"Requires", …>`): nothing. Each route's
 * handlers get every port they need from their own list (withPorts), so a port missing from a list does not compile.
 */
type LeftToTheRequest = Extract<Layer.Services<typeof HttpApp>, HttpRouter.Request<"Requires", any>>
const leftToTheRequest: [LeftToTheRequest] extends [never] ? "nothing" : LeftToTheRequest = "nothing"

const probe = makeRequestProbe()
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ directory: probe.watch, platforms: probe.watch })
})
afterAll(async () => {
  await server?.close()
})

/** Each call was made in the context of the request to `path`, and its finalizer ran when that request ended. */
const inTheirRequest = (calls: ReadonlyArray<ProbedCall>, path: string) => {
  expect(calls.length).toBeGreaterThan(0)
  expect(calls.map((c) => [c.method, c.url])).toEqual(calls.map((c) => [c.method, path]))
  expect(calls.filter((c) => !c.ended).map((c) => c.method)).toEqual([])
}

describe("a handler's context", () => {
  it("no route leaves a port to the request", () => {
    expect(leftToTheRequest).toBe("nothing")
  })
})

describe("REST /api/v1", () => {
  it("a tool call's handler runs in its request: the ports it calls see that request, and a finalizer runs when it ends", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read", "accounts:read"] }))
    const path = "/tools/ads__list_campaigns"
    const calls = await probe.during(async () => {
      expect((await api.post(path, { accountId: "act_paid" })).status).toBe(200)
    })
    inTheirRequest(calls, `/api/v1${path}`)
    expect(calls.map((c) => c.method)).toContain("execute")
  })

  it("so does a route the router did not match (a path parameter longer than it takes), answered through the fallback", async () => {
    const api = restClient(server, await createKey(server, { scopes: ["tools:read"] }))
    const path = `/tools/${"x".repeat(200)}`
    const calls = await probe.during(async () => {
      expect((await api.post(path, {})).status).toBe(404)
    })
    inTheirRequest(calls, `/api/v1${path}`)
  })
})

describe("the pages", () => {
  let admin: Browser
  beforeAll(async () => {
    admin = await browser(server, "admin")
  })

  const workspace = () => server.workspaces.paid.id
  const pages: ReadonlyArray<readonly [string, () => string]> = [
    ["home", () => pagePaths.home],
    ["API & MCP", () => pagePaths.apiMcp(workspace())],
    ["own apps", () => pagePaths.ownApps(workspace())],
    ["API keys", () => pagePaths.apiKeys(workspace())],
    ["approvals", () => pagePaths.approvals(workspace())],
    ["audit log", () => pagePaths.audit(workspace())],
    ["settings", () => pagePaths.settings(workspace())],
    ["account", () => pagePaths.account]
  ]

  it.each(pages)("%s: the page's handler runs in its request, a finalizer runs when it ends", async (_, pathOf) => {
    const path = pathOf()
    const calls = await probe.during(async () => {
      expect((await admin.get(path)).status).toBeLessThan(400)
    })
    inTheirRequest(calls, path)
  })

  it("signing in: the sign-in's handler runs in its request, a finalizer runs when it ends", async () => {
    const page = await server.get("/signin")
    const fields = { csrf_token: csrfTokenIn(await page.text()), email: server.users.editor.email, password: server.users.editor.password, return_to: "/" }
    const calls = await probe.during(async () => {
      expect((await server.postForm("/signin", fields, cookiesFrom(page))).status).toBe(303)
    })
    inTheirRequest(calls, "/signin")
  })
})
