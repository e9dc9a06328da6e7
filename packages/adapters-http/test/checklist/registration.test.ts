// Security checklist cases of dynamic registration proven over HTTP (checklist H 107, P 183): registering never makes
// the service fetch anything, and a client secret is shown once, never read back, never shared by two clients.
import { Effect, Layer } from "effect"
import { MetadataDocumentFetcher, MetadataDocumentUnavailable } from "@adgate/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/testServer.ts"

const fetched: Array<string> = []
const countingFetcher = Layer.succeed(MetadataDocumentFetcher, MetadataDocumentFetcher.of({
  fetch: (url) => Effect.sync(() => fetched.push(url)).pipe(
    Effect.andThen(Effect.fail(new MetadataDocumentUnavailable({ url, reason: "no fetch expected in these tests" })))
  )
}))

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ metadataDocumentFetcher: countingFetcher })
})
afterAll(() => server.close())

const register = (body: unknown) =>
  server.fetch("/oauth/register", { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } })

describe("checklist H: no outbound request at registration (checklist 107)", () => {
  it("jwks_uri, logo_uri, tos_uri, policy_uri, client_uri and sector_identifier_uri at a metadata address are stored nowhere and fetched never", async () => {
    const internal = "http://169.254.169.254/latest/meta-data/"
    const response = await register({
      redirect_uris: ["https://app.example/cb"],
      client_name: "Probe",
      jwks_uri: internal, logo_uri: internal, tos_uri: internal, policy_uri: internal, client_uri: internal,
      sector_identifier_uri: internal, request_uris: [internal]
    })
    expect(response.status).toBe(201)
    expect(await response.text()).not.toContain("169.254.169.254")
    // The consent page of that client fetches nothing either: a registered client is read from the store.
    const cookie = await server.signIn(server.users.admin.email, server.users.admin.password)
    const clientId = ((await (await register({ redirect_uris: ["https://app.example/cb"], logo_uri: internal })).json()) as { client_id: string }).client_id
    const page = await server.get(
      `/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent("https://app.example/cb")}` +
        `&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`,
      cookie
    )
    expect(page.status).toBe(200)
    expect(await page.text()).not.toContain("169.254.169.254")
    expect(fetched).toEqual([])
  })
})

describe("checklist P: the client secret's lifecycle (RFC 7591 §5, checklist 183)", () => {
  it("each confidential registration gets its own secret, shown once; no endpoint reads a client back", async () => {
    const bodies = await Promise.all([1, 2].map(async () => {
      const response = await register({ redirect_uris: ["https://web.example/cb"], token_endpoint_auth_method: "client_secret_basic" })
      expect(response.status).toBe(201)
      return (await response.json()) as { client_id: string; client_secret: string }
    }))
    const [a, b] = bodies
    expect(a?.client_secret).not.toBe(b?.client_secret)
    expect(a?.client_id).not.toBe(b?.client_id)
    for (const path of ["/oauth/register", `/oauth/register/${a?.client_id}`, `/oauth/register?client_id=${a?.client_id}`]) {
      const read = await server.get(path)
      expect([404, 405]).toContain(read.status)
      expect(await read.text()).not.toContain(a?.client_secret)
    }
  })
})
