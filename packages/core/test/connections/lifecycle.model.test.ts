// Model-based test of the connection lifecycle (architecture §Lifecycles are pure transitions): random sequences of
// refreshes (live, spent, dead tokens, widened scope), revocation, Directory outages and clock steps (TestClock,
// never sleep) are run through the token endpoint and checked against a small reference model of spec §States:
// Connection. Invariants: at most one live refresh token; an ended connection never revives; a refused refresh
// never spends; and (codes) a code is exchanged at most once.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { ConnectionStore, handleTokenRequest, revokeToken, Secrets, type Connection, ConnectionId, ClientId } from "@adgate/core"
import { codeGrant, DirectoryControl, form, insertCode, refreshGrant, seed, World } from "../token/world.ts"

const second = 1000
const day = 24 * 3600 * second

interface Model {
  now: number
  ended: boolean
  head: string
  headIssuedAt: number
  spent: { readonly token: string; readonly at: number } | null
  dead: Array<string>
  roleConfirmedAt: number
  down: boolean
}

interface Real {
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
  readonly connectionId: ConnectionId
}

/** The refresh's answer, or the core's refusal by tag (invalid_grant, invalid_scope, temporarily_unavailable on the wire). */
type Outcome = "ok" | "RefreshTokenInvalid" | "ScopeNotGranted" | "RoleUnconfirmed"

const load = (real: Real) => real.run(Effect.gen(function* () {
  return Option.getOrThrow(yield* (yield* ConnectionStore).find(real.connectionId))
}))

/** The spec's table, row by row, as the model answers it (mutating the model on success). */
const expected = (m: Model, kind: "head" | "spent" | "dead", widen: boolean): Outcome => {
  if (m.ended) return "RefreshTokenInvalid"
  if (m.now >= 365 * day) { m.ended = true; return "RefreshTokenInvalid" }
  if (kind === "dead") { m.ended = true; return "RefreshTokenInvalid" }
  if (kind === "spent" && m.now - m.spent!.at >= 30 * second) { m.ended = true; return "RefreshTokenInvalid" }
  if (kind === "head" && m.now - m.headIssuedAt >= 30 * day) return "RefreshTokenInvalid"
  if (widen) return "ScopeNotGranted"
  if (m.down && m.now - m.roleConfirmedAt > day) return "RoleUnconfirmed"
  return "ok"
}

const checkInvariants = async (m: Model, real: Real, before: Connection, outcome: Outcome) => {
  const after = await load(real)
  // An ended connection never revives; an active one is active in both.
  assert.strictEqual(after.status, m.ended ? "ended" : "active")
  // At most one live refresh token: the stored head is the model's head, every other token is spent or dead.
  if (!m.ended) assert.strictEqual(after.refresh.hash, await real.run(Effect.flatMap(Secrets, (s) => s.hash(m.head))))
  // A refused refresh never spends.
  if (outcome !== "ok" && !m.ended) assert.deepStrictEqual(after.refresh, before.refresh)
}

const refreshCommand = (kind: "head" | "spent" | "dead", widen: boolean, pick: number): fc.AsyncCommand<Model, Real> => ({
  check: (m) => (kind === "spent" ? m.spent !== null : kind === "dead" ? m.dead.length > 0 : true),
  run: async (m, real) => {
    const before = await load(real)
    const presented = kind === "head" ? m.head : kind === "spent" ? m.spent!.token : m.dead[pick % m.dead.length]!
    const want = expected(m, kind, widen)
    const result = await real.run(Effect.result(handleTokenRequest({
      params: refreshGrant(presented, widen ? { scope: "tasks:read tools:raw" } : {}), basic: null
    })))
    const got: Outcome = result._tag === "Success" ? "ok" : (result.failure._tag as Outcome)
    assert.strictEqual(got, want, `refresh with the ${kind} token`)
    if (result._tag === "Success") {
      if (kind === "head") {
        if (m.spent !== null) m.dead.push(m.spent.token)
        m.spent = { token: m.head, at: m.now }
      } else m.dead.push(m.head) // the unused successor's pair is withdrawn
      m.head = result.success.refresh_token
      m.headIssuedAt = m.now
      if (!m.down) m.roleConfirmedAt = m.now
    }
    await checkInvariants(m, real, before, got)
  },
  toString: () => `refresh(${kind}${widen ? ", widen" : ""})`
})

const advance = (ms: number): fc.AsyncCommand<Model, Real> => ({
  check: () => true,
  run: async (m, real) => { await real.run(TestClock.adjust(ms)); m.now += ms },
  toString: () => `advance(${ms})`
})

const directory = (down: boolean): fc.AsyncCommand<Model, Real> => ({
  check: () => true,
  run: async (m, real) => { await real.run(Effect.flatMap(DirectoryControl, (c) => c.setUnavailable(down))); m.down = down },
  toString: () => `directory(${down ? "down" : "up"})`
})

const revoke: fc.AsyncCommand<Model, Real> = {
  check: () => true,
  run: async (m, real) => {
    const before = await load(real)
    await real.run(revokeToken({ params: form({ token: m.head, client_id: "apc_pub" }), basic: null }))
    m.ended = true
    await checkInvariants(m, real, before, "RefreshTokenInvalid")
  },
  toString: () => "revoke(head)"
}

const commands = [
  fc.boolean().map((widen) => refreshCommand("head", widen, 0)),
  fc.constant(refreshCommand("spent", false, 0)),
  fc.nat().map((pick) => refreshCommand("dead", false, pick)),
  fc.constantFrom(1, 10, 29, 31, 3600, 25 * 3600, 29 * 24 * 3600, 31 * 24 * 3600).map((s) => advance(s * second)),
  fc.boolean().map(directory),
  fc.constant(revoke)
]

/** A fresh world per run: memory stores, a TestClock at 0, one connection made by exchanging a code. */
const setup = async (): Promise<{ model: Model; real: Real }> => {
  const context = await Effect.runPromise(Effect.scoped(Layer.build(Layer.mergeAll(World, TestClock.layer()))))
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provide(effect, context) as Effect.Effect<A, E>)
  const code = await run(Effect.andThen(seed, insertCode()))
  await run(handleTokenRequest({ params: codeGrant(code), basic: null }))
  // A second exchange of the same code is refused: a code is exchanged at most once.
  const replay = await run(Effect.result(handleTokenRequest({ params: codeGrant(code), basic: null })))
  assert.strictEqual(replay._tag, "Failure")
  const code2 = await run(insertCode({ label: "b" }))
  const fresh = await run(handleTokenRequest({ params: codeGrant(code2), basic: null }))
  const connections = await run(Effect.flatMap(ConnectionStore, (s) => s.listByClient(ClientId.make("apc_pub"))))
  const active = connections.find((c) => c.status === "active")!
  return {
    model: { now: 0, ended: false, head: fresh.refresh_token, headIssuedAt: 0, spent: null, dead: [], roleConfirmedAt: 0, down: false },
    real: { run, connectionId: active.id }
  }
}

describe("connection lifecycle against a reference model (fast-check fc.commands)", () => {
  it("every sequence agrees with spec §States: Connection and keeps the invariants", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (cmds) => {
        await fc.asyncModelRun(setup, cmds)
      }),
      { numRuns: 150 }
    )
  }, 120_000)
})
