// Property over HTTP (spec §REST API: "Search lists only tools this credential may call"; docs/decisions.md, Tools and
// access): for random connections (scopes, platform choice, write mode), plans, approver roles and connected
// platforms, GET /tools lists exactly the tools that POST /tools/{name} does not refuse with 403 or 409.
import * as fc from "fast-check"
import { Clock, Effect, Option, Ref } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AccessTokenStore,
  ConnectionStore,
  Directory,
  Prefix,
  type Role,
  type Scope,
  canConnect,
  Secrets,
  UserId,
  ConnectionId,
  ClientId
} from "@adgate/core"
import {
  type MemoryPlatformState,
  memoryTools,
  PlatformsMemoryState
} from "@adgate/core/testing"
import { startTestServer, type TestServer } from "../support/testServer.ts"
import { restClient } from "./restClient.ts"

let server: TestServer
let allAccounts: MemoryPlatformState["accounts"]

const platformState = () =>
  server.run(Effect.gen(function* () { return yield* PlatformsMemoryState }) as Effect.Effect<Ref.Ref<MemoryPlatformState>>)

beforeAll(async () => {
  server = await startTestServer()
  allAccounts = (await Effect.runPromise(Ref.get(await platformState()))).accounts
})
afterAll(() => server.close())

interface World {
  readonly scopes: ReadonlyArray<Scope>
  readonly platforms: "all" | ReadonlyArray<string>
  readonly writeMode: "wait" | "apply"
  readonly plan: "free" | "paid"
  readonly role: Role | null
  readonly connected: ReadonlyArray<string>
}

const world: fc.Arbitrary<World> = fc.record({
  scopes: fc.subarray<Scope>(["accounts:read", "tools:read", "tools:write", "tools:raw"], { minLength: 1 }),
  platforms: fc.oneof(fc.constant("all" as const), fc.subarray(["ads", "shop"])),
  writeMode: fc.constantFrom("wait" as const, "apply" as const),
  plan: fc.constantFrom("free" as const, "paid" as const),
  role: fc.constantFrom<Role | null>("admin", "editor", "viewer", null),
  connected: fc.subarray(["ads", "shop"])
})

/** An active REST connection of the paid workspace approved by a fresh person, and its access token. */
const connectionToken = (w: World) =>
  server.run(Effect.gen(function* () {
    const secrets = yield* Secrets
    const directory = yield* Directory
    const now = yield* Clock.currentTimeMillis
    const workspaceId = server.workspaces.paid.id
    const approverId = UserId.make(yield* secrets.generate(Prefix.user))
    yield* directory.createUser({ id: approverId, email: `${approverId}@paid.test`, name: "Approver", createdAt: now })
    yield* directory.setRole(workspaceId, approverId, w.role === null ? Option.none() : Option.some(w.role))
    yield* directory.setPlan(workspaceId, w.plan)
    const connectionId = ConnectionId.make(yield* secrets.generate(Prefix.connection))
    yield* (yield* ConnectionStore).insert({
      id: connectionId, version: 1, clientId: ClientId.make("apc_property"), workspaceId, approverId, scopes: [...w.scopes], surface: "rest",
      platforms: w.platforms === "all" ? "all" : [...w.platforms], writeMode: w.writeMode, status: "active", endedReason: null,
      createdAt: now, endedAt: null, expiresAt: now + 365 * 86_400_000, roleConfirmedAt: now,
      refresh: { hash: yield* secrets.hash(`refresh-${connectionId}`), generation: 1, issuedAt: now }, spent: null, withdrawn: [],
      lastUsedAt: now
    })
    const token = yield* secrets.generate(Prefix.accessToken)
    yield* (yield* AccessTokenStore).insert({
      hash: yield* secrets.hash(token), connectionId, generation: 1, clientId: ClientId.make("apc_property"), workspaceId, scopes: [...w.scopes],
      surface: "rest", issuedAt: now, expiresAt: now + 3_600_000, revokedAt: null
    })
    return token
  }).pipe(Effect.orDie))

describe("GET /tools and POST /tools/{name} cannot drift", () => {
  it("what GET /tools lists is exactly what POST /tools/{name} refuses neither 403 nor 409", async () => {
    const state = await platformState()
    const seen = { listed: 0, refused: 0 }
    await fc.assert(fc.asyncProperty(world, async (w) => {
      await Effect.runPromise(Ref.update(state, (s) => ({
        ...s, accounts: allAccounts.filter((a) => a.workspaceId !== server.workspaces.paid.id || w.connected.includes(a.platform))
      })))
      const api = restClient(server, await connectionToken(w))
      const list = await api.get("/tools?limit=100")
      // An approver who can connect nothing (not a member, a viewer): the credential itself no longer works
      // (authenticateBearer checks the membership at every request, docs/decisions.md "Connections and keys"), so
      // every request is 401. An editor keeps the credential without its tools scopes: every tool is 403 then.
      if (w.role === null || !canConnect(w.role)) {
        expect(list.status).toBe(401)
        expect((await api.post(`/tools/${memoryTools[0]!.name}`, {})).status).toBe(401)
        return
      }
      const listed = new Set<string>(list.status === 200 ? list.body.tools.map((t: { name: string }) => t.name) : [])
      // Without any tools scope the list itself is refused (403 asking for tools:read), and so is every call.
      if (!w.scopes.some((s) => s.startsWith("tools:"))) expect(list.status).toBe(403)
      for (const tool of memoryTools) {
        // Empty arguments: access (403) and the connected account (409) are decided before the arguments (422).
        const call = await api.post(`/tools/${tool.name}`, {})
        expect([401, 404, 500, 503]).not.toContain(call.status)
        const refused = call.status === 403 || call.status === 409
        expect(listed.has(tool.name), `${tool.name}: call answered ${call.status} ${call.body?.error}`).toBe(!refused)
        seen[refused ? "refused" : "listed"] += 1
      }
    }), {
      numRuns: 40,
      // Both sides always exercised, whatever the seed: a world that lists tools and one that refuses them.
      examples: [
        [{ scopes: ["tools:read"], platforms: "all", writeMode: "wait", plan: "paid", role: "admin", connected: ["ads", "shop"] }],
        [{ scopes: ["tools:read"], platforms: ["ads"], writeMode: "wait", plan: "paid", role: "admin", connected: ["shop"] }]
      ]
    })
    // The worlds drawn must exercise both sides, or the property says nothing.
    expect(seen.listed).toBeGreaterThan(0)
    expect(seen.refused).toBeGreaterThan(0)
  }, 120_000)
})
