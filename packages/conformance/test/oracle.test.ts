// The oracle alone (no server): answers made up here are judged by the core's transitions. Each case is a rule the
// kit would miss, or a deviation it would invent, if the oracle were wrong.
import { describe, expect, it } from "vitest"
import { type Answer, authorized, emptyWorld, type Request, step, type World } from "../src/oracle.ts"
import { profiles, withOverrides } from "../src/rules.ts"

const client = "apc_kit"
const redirect = "http://127.0.0.1:9/callback"
const verifier = "v".repeat(43)
const t0 = 1_800_000_000_000
const tokens = (n: number): Answer => ({ _tag: "Tokens", status: 200, access: `at_${n}`, refresh: `rt_${n}`, scope: "tools:read tools:write", expiresIn: 3600 })
const error = (e: string): Answer => ({ _tag: "Error", status: 400, error: e })
const exchange: Request = { _tag: "Exchange", code: "code_1", clientId: client, redirectUri: redirect, verifier, foreignResource: false }
const refresh = (token: string): Request => ({ _tag: "Refresh", token, clientId: client, scope: null, foreignResource: false })
const probe = (token: string): Request => ({ _tag: "Probe", token })
const ok: Answer = { _tag: "Status", status: 200 }
const denied: Answer = { _tag: "Status", status: 401 }

/** Runs sequential steps, failing the test on the first deviation. */
const run = (profile = profiles.adgate, steps: ReadonlyArray<readonly [Request, Answer, number]>): ReadonlyArray<World> => {
  let worlds: ReadonlyArray<World> = [authorized(emptyWorld, "code_1", client, redirect, verifier, t0)]
  for (const [request, answer, at] of steps) {
    const result = step(worlds, [request], [answer], profile, at)
    expect(result.deviation, JSON.stringify(request)).toBeNull()
    worlds = result.worlds
  }
  return worlds
}

describe("the oracle (adgate's core transitions)", () => {
  it("a second exchange is refused and ends the grant of the first: its access token then fails at the probe", () => {
    const worlds = run(profiles.adgate, [[exchange, tokens(1), t0 + 10], [exchange, error("invalid_grant"), t0 + 20]])
    expect(step(worlds, [probe("at_1")], [ok], profiles.adgate, t0 + 30).deviation?.rules).toEqual(["access.ended-grant", "code.reuse-ends-grant"])
    expect(step(worlds, [probe("at_1")], [denied], profiles.adgate, t0 + 30).deviation).toBeNull()
  })

  it("tokens for a code already exchanged are a deviation of the code's single use", () => {
    const worlds = run(profiles.adgate, [[exchange, tokens(1), t0 + 10]])
    expect(step(worlds, [exchange], [tokens(2)], profiles.adgate, t0 + 20).deviation?.rules).toEqual(["code.single-use"])
  })

  it("adgate: the spent token within 30 s rotates again and withdraws the unused successor's access token", () => {
    const worlds = run(profiles.adgate, [
      [exchange, tokens(1), t0], [refresh("rt_1"), tokens(2), t0 + 1_000], [refresh("rt_1"), tokens(3), t0 + 2_000],
      [probe("at_2"), denied, t0 + 3_000], [probe("at_3"), ok, t0 + 3_000], [probe("at_1"), ok, t0 + 3_000]
    ])
    // After 30 s, the same spent token is reuse: the grant ends.
    expect(step(worlds, [refresh("rt_1")], [tokens(4)], profiles.adgate, t0 + 31_000).deviation?.rules).toEqual(["refresh.reuse-ends-grant"])
  })

  it("oauth-2.1 (strict rotation): the spent token one second later already ends the grant", () => {
    const worlds = run(profiles["oauth-2.1"], [[exchange, tokens(1), t0], [refresh("rt_1"), tokens(2), t0 + 1_000]])
    expect(step(worlds, [refresh("rt_1")], [tokens(3)], profiles["oauth-2.1"], t0 + 2_000).deviation?.rules).toEqual(["refresh.reuse-ends-grant"])
    const after = step(worlds, [refresh("rt_1")], [error("invalid_grant")], profiles["oauth-2.1"], t0 + 2_000)
    expect(after.deviation).toBeNull()
    expect(step(after.worlds, [refresh("rt_2")], [tokens(3)], profiles["oauth-2.1"], t0 + 3_000).deviation).not.toBeNull()
  })

  it("parallel refreshes with one token: any serial order is accepted, and the probe then tells which answer came last", () => {
    const worlds = run(profiles.adgate, [[exchange, tokens(1), t0]])
    const raced = step(worlds, [refresh("rt_1"), refresh("rt_1"), refresh("rt_1")], [tokens(2), tokens(3), tokens(4)], profiles.adgate, t0 + 1_000, "refresh.race")
    expect(raced.deviation).toBeNull()
    expect(raced.worlds.length).toBe(6)
    expect(raced.exercised.has("refresh.retry-window")).toBe(true)
    // Exactly one of the three pairs survives: two working access tokens fit no order.
    const first = step(raced.worlds, [probe("at_3")], [ok], profiles.adgate, t0 + 2_000)
    expect(first.deviation).toBeNull()
    expect(step(first.worlds, [probe("at_4")], [ok], profiles.adgate, t0 + 2_000).deviation).not.toBeNull()
    // Strict rotation: one answer may be tokens, never two.
    const strict = run(profiles["oauth-2.1"], [[exchange, tokens(1), t0]])
    expect(step(strict, [refresh("rt_1"), refresh("rt_1")], [tokens(2), tokens(3)], profiles["oauth-2.1"], t0 + 1_000, "refresh.race").deviation?.rules[0]).toBe("refresh.race")
  })

  it("a widened scope is refused and spends nothing; a narrowed one is answered narrower", () => {
    const worlds = run(profiles.adgate, [[exchange, tokens(1), t0]])
    const widen: Request = { ...refresh("rt_1"), scope: "tools:read tools:write tools:raw" } as Request
    const refused = step(worlds, [widen], [error("invalid_scope")], profiles.adgate, t0 + 1_000)
    expect(refused.deviation).toBeNull()
    const narrow: Request = { ...refresh("rt_1"), scope: "tools:read" } as Request
    expect(step(refused.worlds, [narrow], [tokens(2)], profiles.adgate, t0 + 2_000).deviation?.reasons[0]).toMatch(/expected scope "tools:read"/)
    expect(step(refused.worlds, [narrow], [{ ...tokens(2), scope: "tools:read" } as Answer], profiles.adgate, t0 + 2_000).deviation).toBeNull()
  })

  it("a failed exchange keeps the code in adgate, and the fifth kills it; oauth-2.1 leaves it open (either)", () => {
    const wrong: Request = { ...exchange, verifier: "w".repeat(43) } as Request
    const five = Array.from({ length: 5 }, (_, i) => [wrong, error("invalid_grant"), t0 + i] as const)
    const exhausted = run(profiles.adgate, five)
    expect(step(exhausted, [exchange], [tokens(1)], profiles.adgate, t0 + 10).deviation?.rules).toEqual(["code.failed-attempts"])
    const kept = run(profiles.adgate, five.slice(0, 4))
    expect(step(kept, [exchange], [tokens(1)], profiles.adgate, t0 + 10).deviation).toBeNull()
    const open = run(profiles["oauth-2.1"], [[wrong, error("invalid_grant"), t0]])
    expect(step(open, [exchange], [tokens(1)], profiles["oauth-2.1"], t0 + 1).deviation).toBeNull()
    expect(step(open, [exchange], [error("invalid_grant")], profiles["oauth-2.1"], t0 + 1).deviation).toBeNull()
  })

  it("revoking an access token ends only it under adgate; under oauth-2.1 it may end the grant too (RFC 7009 MAY)", () => {
    const revoke: Request = { _tag: "Revoke", token: "at_1", clientId: client }
    const revoked: Answer = { _tag: "Status", status: 200 }
    const adgate = run(profiles.adgate, [[exchange, tokens(1), t0], [revoke, revoked, t0 + 1], [probe("at_1"), denied, t0 + 2]])
    expect(step(adgate, [refresh("rt_1")], [error("invalid_grant")], profiles.adgate, t0 + 3).deviation?.rules).toEqual(["refresh.rotate"])
    const strict = run(profiles["oauth-2.1"], [[exchange, tokens(1), t0], [revoke, revoked, t0 + 1]])
    expect(step(strict, [refresh("rt_1")], [error("invalid_grant")], profiles["oauth-2.1"], t0 + 3).deviation).toBeNull()
    expect(step(strict, [refresh("rt_1")], [tokens(2)], profiles["oauth-2.1"], t0 + 3).deviation).toBeNull()
  })

  it("a refresh refused for another resource must leave its token working; the rule named is refused-spends-nothing", () => {
    const worlds = run(profiles.adgate, [[exchange, tokens(1), t0], [{ ...refresh("rt_1"), foreignResource: true } as Request, error("invalid_target"), t0 + 1]])
    expect(step(worlds, [refresh("rt_1")], [error("invalid_grant")], profiles.adgate, t0 + 2).deviation?.rules[0]).toBe("refresh.refused-spends-nothing")
    expect(step(worlds, [refresh("rt_1")], [tokens(2)], profiles.adgate, t0 + 2).exercised.has("refresh.refused-spends-nothing")).toBe(true)
  })

  it("profile flags: --set overrides, and refuses what is not a flag", () => {
    expect(withOverrides(profiles.adgate, ["retryWindowMs=0", "audience=false"])).toMatchObject({ retryWindowMs: 0, audience: false })
    expect(() => withOverrides(profiles.adgate, ["retryWindow=0"])).toThrow(/no profile flag/)
    expect(() => withOverrides(profiles.adgate, ["audience=yes"])).toThrow(/true or false/)
  })
})
