// The CLI's write approvals and guardrails (approval by a workspace admin or editor, through a core service and
// CLI commands; guardrails set with the CLI), in process on the embedded database of a seeded demo workspace.
import { assert, describe, it } from "vitest"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { revokeApiKey, WriteRequestId } from "@adgate/core"
import { appPorts } from "../src/appPorts.ts"
import { seedOnFirstStart } from "../src/seed.ts"
import { runCli } from "./support/serverProcess.ts"
import { testConfig } from "./support/testConfig.ts"
import { waitingApiKey } from "./support/waitingApiKey.ts"

const configFor = (dataDir: string) => testConfig(dataDir)

/** Seeds the demo workspace and queues two writes waiting for approval (as a "Wait for approval" API key would). */
const seedWithQueuedWrites = (dataDir: string) =>
  Effect.runPromise(Effect.gen(function* () {
    yield* seedOnFirstStart({ adminEmail: Option.none(), adminPassword: Option.none(), print: () => {} })
    // A live key: approving checks that the credential that asked still is (docs/decisions.md, Write requests).
    const { workspace, admin, key, enabledCampaigns: campaigns, queue } = yield* waitingApiKey("cli test")
    return [yield* queue(campaigns[0]!), yield* queue(campaigns[1]!), yield* queue(campaigns[2]!), key.id, workspace.id, admin.id] as const
  }).pipe(Effect.provide(appPorts(configFor(dataDir))), Effect.scoped))

describe("the CLI's write approvals and guardrails", () => {
  it("lists the queue, approves one (it runs at once), refuses a second decision, rejects another", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-cli-requests-"))
    try {
      const [first, second, third, keyId, workspaceId, adminId] = await seedWithQueuedWrites(dataDir)
      assert.match(first, /^rwq_/)
      const list = await runCli(dataDir, ["requests", "list", "Demo"])
      assert.strictEqual(list.code, 0, list.stderr)
      assert.include(list.stdout, first)
      assert.include(list.stdout, "gads__pause_campaign")
      const approved = await runCli(dataDir, ["requests", "approve", "Demo", first, "editor@example.com"])
      assert.strictEqual(approved.code, 0, approved.stderr)
      assert.include(approved.stdout, `request ${first} approved and executed: the platform answered 200`)
      const again = await runCli(dataDir, ["requests", "approve", "Demo", first, "admin@example.com"])
      assert.strictEqual(again.code, 1)
      assert.include(again.stderr, "is already executed")
      const rejected = await runCli(dataDir, ["requests", "reject", "Demo", second, "admin@example.com"])
      assert.include(rejected.stdout, `request ${second} rejected`)
      // The key that asked is revoked: its last write can no longer be approved, and is withdrawn.
      await Effect.runPromise(revokeApiKey({ keyId, workspaceId, actorId: adminId }).pipe(Effect.provide(appPorts(configFor(dataDir))), Effect.scoped))
      const refused = await runCli(dataDir, ["requests", "approve", "Demo", third, "admin@example.com"])
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, `request ${third} can no longer be approved: the API key ${keyId} that asked for this change was revoked`)
      const empty = await runCli(dataDir, ["requests", "list", "Demo"])
      assert.include(empty.stdout, "no writes waiting in Demo")
      const unknown = await runCli(dataDir, ["requests", "approve", "Demo", WriteRequestId.make("rwq_nope"), "admin@example.com"])
      assert.strictEqual(unknown.code, 1)
      assert.include(unknown.stderr, "no write request rwq_nope")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  it("sets and shows guardrails, and refuses a negative cap", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "adgate-cli-guardrails-"))
    try {
      assert.strictEqual((await runCli(dataDir, ["workspace", "add", "Rails", "--plan", "paid"])).code, 0)
      const set = await runCli(dataDir, ["guardrails", "set", "Rails", "--max-budget-change-percent", "20", "--protected-names", "Brand*, *black friday*"])
      assert.strictEqual(set.code, 0, set.stderr)
      const shown = await runCli(dataDir, ["guardrails", "show", "Rails"])
      assert.match(shown.stdout, /max budget change percent:\s+20/)
      assert.match(shown.stdout, /max changes per day:\s+none/)
      // The day cap follows the per-change cap until set on its own.
      assert.match(shown.stdout, /per budget per day:\s+as per change/)
      const perDay = await runCli(dataDir, ["guardrails", "set", "Rails", "--max-budget-change-percent-per-day", "30"])
      assert.match(perDay.stdout, /per budget per day:\s+30/)
      assert.include(shown.stdout, "Brand*, *black friday*")
      const cleared = await runCli(dataDir, ["guardrails", "set", "Rails", "--max-budget-change-percent", "none", "--max-changes-per-day", "10"])
      assert.match(cleared.stdout, /max budget change percent:\s+none/)
      assert.match(cleared.stdout, /max changes per day:\s+10/)
      const refused = await runCli(dataDir, ["guardrails", "set", "Rails", "--max-changes-per-day", "-1"])
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, "The guardrails cannot be set: max changes per day must be a whole number of 0 or more")
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
