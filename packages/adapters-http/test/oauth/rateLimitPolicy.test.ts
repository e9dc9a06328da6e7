// The rate-limit policy over HTTP (docs/limits.md; issue "one policy, every limiter"): the defaults let a hosted
// product register hundreds of clients from one address; a configured limit answers 429 with Retry-After; behind a
// trusted proxy the forwarded client is counted, from anyone else X-Forwarded-For changes nothing; IPv6 per /64.
import { afterAll, describe, expect, it } from "vitest"
import { defaultLimits, type RateLimitPolicy } from "@adgate/core"
import { clientAddress, compileTrustedProxies, countedAddress, countedCacheSize, rememberedAddresses } from "../../src/clientAddress.ts"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { registerApp } from "./oauthClient.ts"

const servers: Array<TestServer> = []
afterAll(async () => {
  for (const s of servers) await s.close()
})
const serverWith = async (options: Parameters<typeof startTestServer>[0]) => {
  const server = await startTestServer(options)
  servers.push(server)
  return server
}

/** The defaults with two registrations per address and hour. */
const twoPerAddress: RateLimitPolicy = {
  enabled: true,
  limits: { ...defaultLimits, registrations_per_address: { count: 2, windowMs: 3_600_000 } }
}

const register = (server: TestServer, forwardedFor?: string) =>
  server.fetch("/oauth/register", {
    method: "POST",
    body: JSON.stringify({ redirect_uris: ["https://app.example/cb"] }),
    headers: { "content-type": "application/json", ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }) }
  }).then(async (response) => {
    await response.body?.cancel()
    return response
  })

const statuses = async (server: TestServer, forwardedFor: ReadonlyArray<string | undefined>) => {
  const answers: Array<number> = []
  for (const f of forwardedFor) answers.push((await register(server, f)).status)
  return answers
}

describe("defaults sized for a real service (docs/limits.md)", () => {
  it("300 registrations from one address in an hour are accepted with the default limits", async () => {
    const server = await serverWith({})
    const answers = await statuses(server, Array.from({ length: 300 }, () => undefined))
    expect(answers.filter((s) => s === 201).length).toBe(300)
  })

  it("a configured lower limit answers 429 temporarily_unavailable with Retry-After (RFC 7591 §3.1, RFC 6585 §4)", async () => {
    const server = await serverWith({ rateLimits: twoPerAddress })
    expect(await statuses(server, [undefined, undefined])).toEqual([201, 201])
    const refused = await server.fetch("/oauth/register", {
      method: "POST", body: JSON.stringify({ redirect_uris: ["https://app.example/cb"] }), headers: { "content-type": "application/json" }
    })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" })
    const retryAfter = Number(refused.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(3600)
  })
})

describe("the client address behind proxies (TRUSTED_PROXIES)", () => {
  it("through a trusted proxy a request is counted against the forwarded address, and two clients behind it do not share a limit", async () => {
    const server = await serverWith({ rateLimits: twoPerAddress, trustedProxies: ["loopback"] })
    expect(await statuses(server, ["198.51.100.1", "198.51.100.1", "198.51.100.1"])).toEqual([201, 201, 429])
    // Another client behind the same proxy has its own count; so has the proxy's own address.
    expect(await statuses(server, ["198.51.100.2", "198.51.100.2", undefined])).toEqual([201, 201, 201])
    // A spoofed entry to the left of what the proxy appended is not believed: the right-most untrusted one counts.
    expect(await statuses(server, ["203.0.113.77, 198.51.100.1"])).toEqual([429])
  })

  it("the same header from an untrusted peer is ignored: every request counts against the peer", async () => {
    const server = await serverWith({ rateLimits: twoPerAddress })
    expect(await statuses(server, ["198.51.100.1", "198.51.100.2", "198.51.100.3"])).toEqual([201, 201, 429])
  })

  it("IPv6 clients in one /64 share a limit; the next /64 has its own", async () => {
    const server = await serverWith({ rateLimits: twoPerAddress, trustedProxies: ["127.0.0.1"] })
    expect(await statuses(server, ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::99"])).toEqual([201, 201, 429])
    expect(await statuses(server, ["2001:db8:1:3::1"])).toEqual([201])
  })
})

describe("every limiter counts the same client address", () => {
  it("failed client authentications behind a trusted proxy are counted per forwarded client (OAuth 2.1 §2.4.1)", async () => {
    const server = await serverWith({
      rateLimits: { enabled: true, limits: { ...defaultLimits, client_auth_failures_per_address: { count: 2, windowMs: 900_000 } } },
      trustedProxies: ["loopback"]
    })
    const app = await registerApp(server, { type: "server", redirectUris: ["https://app.example/cb"] })
    const wrongSecret = (forwardedFor: string) =>
      server.fetch("/oauth/token", {
        method: "POST",
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "apo_rt_unknown", client_id: app.client.clientId, client_secret: "wrong" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": forwardedFor }
      }).then((r) => r.status)
    const answers: Array<number> = []
    for (const client of ["198.51.100.1", "198.51.100.1", "198.51.100.1", "198.51.100.2"]) answers.push(await wrongSecret(client))
    expect(answers).toEqual([401, 401, 429, 401])
  })
})

describe("clientAddress", () => {
  const trustNobody = compileTrustedProxies([])
  const trustPrivate = compileTrustedProxies(["10.0.0.0/8", "fd00::/8"])

  it("without trusted proxies the peer is the client, whatever X-Forwarded-For says", () => {
    expect(clientAddress("192.0.2.10", "198.51.100.1", trustNobody)).toBe("192.0.2.10")
  })

  it("behind a chain of trusted proxies the right-most untrusted address is the client", () => {
    expect(clientAddress("10.0.0.1", "203.0.113.5, 198.51.100.1, 10.1.1.1", trustPrivate)).toBe("198.51.100.1")
    // Only trusted proxies in the chain: the left-most address is the client (proxy-addr's rule).
    expect(clientAddress("10.0.0.1", "10.2.2.2", trustPrivate)).toBe("10.2.2.2")
    // A trusted peer without the header is the client itself.
    expect(clientAddress("10.0.0.1", undefined, trustPrivate)).toBe("10.0.0.1")
  })

  it("IPv4-mapped IPv6 is counted as IPv4; IPv6 as its /64", () => {
    expect(countedAddress("::ffff:192.0.2.1")).toBe("192.0.2.1")
    expect(countedAddress("2001:db8:a:b:c:d:e:f")).toBe("2001:db8:a:b::/64")
    expect(countedAddress("2001:db8:a:b::1")).toBe(countedAddress("2001:db8:a:b:ffff::2"))
    expect(countedAddress("2001:db8:a:c::1")).not.toBe(countedAddress("2001:db8:a:b::1"))
  })

  it("an address counted again, or after more addresses than are remembered, is counted the same", () => {
    expect(countedAddress("::ffff:192.0.2.7")).toBe("192.0.2.7")
    expect(countedAddress("::ffff:192.0.2.7")).toBe("192.0.2.7")
    for (let i = 0; i < 5000; i++) countedAddress(`2001:db8:${(i % 65536).toString(16)}::${i.toString(16)}`)
    expect(countedAddress("::ffff:192.0.2.7")).toBe("192.0.2.7")
    expect(countedAddress("2001:db8:a:b:c:d:e:f")).toBe("2001:db8:a:b::/64")
    expect(countedAddress("not an address")).toBe("not an address")
  })

  it("the counted addresses remembered stay bounded: at most countedCacheSize, and no text longer than an address", () => {
    for (let i = 0; i < 3 * countedCacheSize; i++) {
      countedAddress(`2001:db8:${(i % 65536).toString(16)}::${i.toString(16)}`)
      expect(rememberedAddresses()).toBeLessThanOrEqual(countedCacheSize)
    }
    // Room for one more (a full cache is cleared first), so that a text kept would show as one more.
    if (rememberedAddresses() === countedCacheSize) countedAddress("192.0.2.200")
    const before = rememberedAddresses()
    const forwarded = "x".repeat(8000)
    expect(countedAddress(forwarded)).toBe(forwarded)
    expect(rememberedAddresses()).toBe(before)
  })

  it("a TRUSTED_PROXIES entry that is not an address or range is refused", () => {
    expect(() => compileTrustedProxies(["10.0.0.0/33"])).toThrow(TypeError)
    expect(() => compileTrustedProxies(["proxy.example"])).toThrow(TypeError)
  })
})
