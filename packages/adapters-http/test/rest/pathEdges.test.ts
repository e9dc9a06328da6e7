// A REST path is what the client sent (spec §REST API; docs/decisions.md, REST API): a path parameter longer than
// the router's maximum reaches its route (an unknown tool is 404, like any other, not 405), and a path with matrix
// parameters (`;suffix`, which the router would drop before matching) is 404 and runs nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { WriteRequestStore } from "@adgate/core"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { callRest, createKey } from "./restClient.ts"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const pending = () => server.run(Effect.flatMap(WriteRequestStore, (store) => store.listPending(server.workspaces.paid.id))).then((p) => p.length)

describe("a path segment longer than the router's parameter length (100)", () => {
  it("GET and POST /tools/<a 200-character name> answer 404 tool_not_found, exactly as any unknown tool", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"] })
    const long = "gads__" + "x".repeat(200)
    const unknown = await callRest(server, key, "GET", "/tools/gads__nothing")
    for (const [method, name] of [["GET", long], ["POST", long]] as const) {
      const answer = await callRest(server, key, method, `/tools/${name}`, method === "POST" ? { body: {} } : {})
      expect(answer.status, method).toBe(404)
      expect(answer.body).toMatchObject({ ok: false, error: unknown.body.error })
    }
    expect(unknown.body.error).toBe("tool_not_found")
    // Still behind the bearer check: no credential is 401, not 404.
    expect((await callRest(server, null, "GET", `/tools/${long}`)).status).toBe(401)
    // A long request or task id is an unknown one.
    expect((await callRest(server, key, "GET", `/requests/rwq_${"y".repeat(150)}`)).body).toMatchObject({ error: "request_not_found" })
  })

  it("a method the route does not answer is still 405 with Allow, whatever the segment's length", async () => {
    const key = await createKey(server, { scopes: ["tools:read"] })
    const answer = await callRest(server, key, "DELETE", `/tools/${"z".repeat(150)}`)
    expect(answer.status).toBe(405)
    expect(answer.headers.get("allow")).toContain("GET")
  })
})

describe("matrix parameters in a path (`;suffix`)", () => {
  it("POST /tools/ads__pause_campaign;evil is 404 and queues nothing; the same call without the suffix queues", async () => {
    const key = await createKey(server, { scopes: ["tools:read", "tools:write"], toolWrites: "wait" })
    const before = await pending()
    const evil = await callRest(server, key, "POST", "/tools/ads__pause_campaign;evil", { body: { accountId: "act_paid", campaignId: "c4" } })
    expect(evil.status).toBe(404)
    expect(evil.body).toMatchObject({ ok: false, error: "not_found" })
    expect(await pending()).toBe(before)
    const plain = await callRest(server, key, "POST", "/tools/ads__pause_campaign", { body: { accountId: "act_paid", campaignId: "c4" } })
    expect(plain.status).toBe(202)
  })

  it("GET /me;x, /tools;x, /openapi.json;x are 404 in JSON, not the route", async () => {
    const key = await createKey(server, { scopes: ["tools:read"] })
    for (const path of ["/me;x", "/tools;x", "/tools/ads__list_campaigns;v=1", "/openapi.json;x"]) {
      const answer = await callRest(server, key, "GET", path)
      expect(answer.status, path).toBe(404)
      expect(answer.headers.get("content-type"), path).toContain("application/json")
      expect(answer.body, path).toMatchObject({ ok: false, error: "not_found" })
    }
    expect((await callRest(server, key, "GET", "/me")).status).toBe(200)
  })
})
