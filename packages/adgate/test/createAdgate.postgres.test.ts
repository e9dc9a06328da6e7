// createAdgate on PostgreSQL (docs/embedding.md): two instances of one host (two processes' worth: each its own pool)
// share one database. Both migrate it at once, both answer, and the host's directory's workspaces get one row each in
// adgate's ledger however many instances name them at once. Runs when DATABASE_URL is set.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { CreditsLedger, WorkspaceId } from "@adgate/core"
import { type Adgate, createAdgate, type HostDirectory } from "adgate"

const databaseUrl = process.env["DATABASE_URL"] ?? ""
const admin = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 }))))

const workspace = { id: "host_ws_pg", name: "PG shop", plan: "paid" as const }
const directory: HostDirectory = {
  user: async () => null,
  userByEmail: async () => null,
  workspace: async (id) => (id === workspace.id ? workspace : null),
  role: async () => null,
  workspacesOf: async () => [],
  members: async () => []
}

describe.skipIf(databaseUrl === "")("createAdgate on PostgreSQL", () => {
  const name = `adgate_embed_${Math.random().toString(36).slice(2, 10)}`
  let url = ""
  let instances: ReadonlyArray<Adgate> = []

  beforeAll(async () => {
    await admin((sql) => sql`CREATE DATABASE ${sql(name)}`)
    const target = new URL(databaseUrl)
    target.pathname = `/${name}`
    url = target.toString()
    const key = Buffer.alloc(32, 3).toString("base64")
    instances = [0, 1].map(() =>
      createAdgate({ baseUrl: "https://pg.example", database: { postgres: url, maxConnections: 4 }, credentialsKey: key, directory, log: "none" }))
    // Both open and migrate the one database at the same moment.
    await Promise.all(instances.map((instance) => instance.migrate()))
  }, 120_000)

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
    await admin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
  })

  it("both instances answer discovery with the one issuer", async () => {
    for (const instance of instances) {
      const response = await instance.fetch(new Request("https://pg.example/.well-known/oauth-authorization-server"))
      assert.strictEqual(((await response.json()) as { issuer: string }).issuer, "https://pg.example")
    }
  })

  it("a host's workspace named by both instances at once has one ledger row; a balance set by one is the other's", async () => {
    await Promise.all([
      instances[0]!.setCredits(workspace.id, 40, "first"),
      instances[1]!.setCredits(workspace.id, 70, "second")
    ])
    const balances = await Promise.all(instances.map((instance) =>
      instance.run(Effect.gen(function* () {
        return yield* (yield* CreditsLedger).balance(WorkspaceId.make(workspace.id))
      }))))
    assert.strictEqual(balances[0], balances[1])
    assert.include([40, 70], balances[0])
    const rows = await instances[0]!.run(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM workspaces WHERE id = ${workspace.id}`
    }))
    assert.strictEqual(rows[0]?.n, 1)
  })
})
