// Liveness and readiness (src/readiness.ts): /health/live answers while the process runs; /health/ready is 503 with
// its reason while the stores cannot answer, migrations are pending or the process is stopping, and 200 otherwise;
// /health answers as before.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { startTestServer, type TestServer } from "../support/testServer.ts"

describe("liveness and readiness", () => {
  let server: TestServer
  let stopping = false
  let pending = 0
  let migrationsFail = false
  beforeAll(async () => {
    server = await startTestServer({
      readiness: {
        shuttingDown: () => stopping,
        pendingMigrations: Effect.suspend(() => migrationsFail ? Effect.fail("no database") : Effect.succeed(pending))
      }
    })
  }, 60_000)
  afterAll(() => server?.close())

  const ready = async () => {
    const answer = await server.get("/health/ready")
    return { status: answer.status, body: await answer.json(), retryAfter: answer.headers.get("retry-after"), cache: answer.headers.get("cache-control") }
  }

  it("ready is 200 {status: ok} when the stores answer, nothing is pending and the process is not stopping", async () => {
    assert.deepStrictEqual(await ready(), { status: 200, body: { status: "ok" }, retryAfter: null, cache: "no-store" })
  })

  it("ready is 503 reason database while a store cannot answer; live stays 200; the outage is a WARN line naming the port", async () => {
    await server.run(server.directory.setUnavailable(true))
    try {
      assert.deepStrictEqual(await ready(), { status: 503, body: { status: "unavailable", reason: "database" }, retryAfter: "5", cache: "no-store" })
      const live = await server.get("/health/live")
      assert.strictEqual(live.status, 200)
      assert.deepStrictEqual(await live.json(), { status: "ok" })
      assert.isTrue(server.logs.some((l) => l.includes("level=WARN") && l.includes("port=database")))
    } finally {
      await server.run(server.directory.setUnavailable(false))
    }
    assert.strictEqual((await ready()).status, 200)
  })

  it("ready is 503 reason database when the migration check itself fails", async () => {
    migrationsFail = true
    try {
      assert.deepStrictEqual((await ready()).body, { status: "unavailable", reason: "database" })
    } finally {
      migrationsFail = false
    }
  })

  it("ready is 503 reason migrations while migrations are pending; /health still answers ok", async () => {
    pending = 2
    try {
      assert.deepStrictEqual(await ready(), { status: 503, body: { status: "unavailable", reason: "migrations" }, retryAfter: "5", cache: "no-store" })
      assert.strictEqual((await server.get("/health")).status, 200)
    } finally {
      pending = 0
    }
    assert.strictEqual((await ready()).status, 200)
  })

  it("ready is 503 reason shutting_down once the shutdown flag is set, before any store is asked; live stays 200", async () => {
    stopping = true
    await server.run(server.directory.setUnavailable(true))
    try {
      assert.deepStrictEqual((await ready()).body, { status: "unavailable", reason: "shutting_down" })
      assert.strictEqual((await server.get("/health/live")).status, 200)
    } finally {
      stopping = false
      await server.run(server.directory.setUnavailable(false))
    }
  })
})
