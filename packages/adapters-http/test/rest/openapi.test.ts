// GET /api/v1/openapi.json (spec §Versioning 2): a valid OpenAPI 3.1 document, checked by @readme/openapi-parser,
// generated from the route table the server registers, naming every route and every status those routes can answer;
// live answers validate against the schemas it declares.
import { validate, compileErrors } from "@readme/openapi-parser"
import { Ajv2020 } from "ajv/dist/2020.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { refusalsOf, statusesOfRoute } from "../../src/rest/openApiDocument.ts"
import { restErrors } from "@adgate/answers"
import { restApi } from "../../src/rest/restApi.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { createKey, restClient } from "./restClient.ts"

let server: TestServer
let document: any

beforeAll(async () => {
  server = await startTestServer()
  document = (await restClient(server, null).get("/openapi.json")).body
})
afterAll(() => server.close())

describe("the OpenAPI document of the REST API", () => {
  it("is valid OpenAPI 3.1 (@readme/openapi-parser)", async () => {
    const result = await validate(structuredClone(document))
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true)
    expect(document.openapi).toBe("3.1.0")
    expect(document.servers).toEqual([{ url: `${server.origin}/api/v1` }])
  })

  it("names every route the server registers, and nothing else", () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`))
    expect(documented.sort()).toEqual(restApi.map((r) => `${r.method} ${r.path}`).sort())
  })

  it("names every status each route can answer, and together every status of the spec's REST table", () => {
    for (const route of restApi) {
      const statuses = Object.keys(document.paths[route.path][route.method.toLowerCase()].responses).map(Number)
      expect(statuses.sort((a, b) => a - b), route.operationId).toEqual([...statusesOfRoute(route)])
    }
    const call = Object.keys(document.paths["/tools/{name}"].post.responses).map(Number)
    expect(call).toEqual(expect.arrayContaining([200, 202, 400, 401, 402, 403, 404, 409, 413, 422, 429, 503]))
    expect(Object.keys(document.paths["/tasks"].post.responses)).toContain("201")
  })

  it("is public and is the service documentation discovery names (RFC 8414 service_documentation)", async () => {
    const metadata = await (await server.fetch("/.well-known/oauth-authorization-server")).json() as { service_documentation: string }
    const answer = await fetch(metadata.service_documentation)
    expect(answer.status).toBe(200)
    expect(((await answer.json()) as { openapi: string }).openapi).toBe("3.1.0")
  })

  it("live answers validate against the schemas it declares", async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    const key = await createKey(server, { scopes: ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write"] })
    const api = restClient(server, key)
    const schemaOf = (path: string, method: string, status: number) => {
      const content = document.paths[path][method].responses[String(status)].content["application/json"].schema
      return content.$ref === "#/components/schemas/Error" ? document.components.schemas.Error : content
    }
    const checks: ReadonlyArray<readonly [string, string, number, Promise<{ status: number; body: unknown }>]> = [
      ["/me", "get", 200, api.get("/me")],
      ["/accounts", "get", 200, api.get("/accounts")],
      ["/tools", "get", 200, api.get("/tools?schema=1")],
      ["/tools/{name}", "get", 200, api.get("/tools/ads__list_campaigns")],
      ["/tools/{name}", "post", 200, api.post("/tools/ads__list_campaigns", { accountId: "act_paid" })],
      ["/tools/{name}", "post", 422, api.post("/tools/ads__list_campaigns", {})],
      ["/tasks", "post", 201, api.post("/tasks", { goal: "weekly performance report for all ad accounts" })],
      ["/tasks", "get", 200, api.get("/tasks")],
      ["/me", "get", 401, restClient(server, null).get("/me")]
    ]
    for (const [path, method, status, pending] of checks) {
      const answer = await pending
      expect(answer.status, `${method} ${path}`).toBe(status)
      const check = ajv.compile(schemaOf(path, method, status))
      expect(check(answer.body), `${method} ${path}: ${JSON.stringify(check.errors)}`).toBe(true)
    }
  })

  it("every row of the REST error table is a refusal some route can answer: no row that no route can answer (RequesterEnded is decided on pages and the CLI, not REST)", () => {
    // The fallback of every other /api/v1 path and method (RestRoutes.ts) answers these two.
    const answerable = new Set<string>(["RouteNotFound", "MethodNotAllowed", ...restApi.flatMap((route) => refusalsOf(route))])
    expect(Object.keys(restErrors).filter((tag) => !answerable.has(tag))).toEqual([])
  })
})
