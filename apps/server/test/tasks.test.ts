// Tasks on a demo-like workspace (a task for each goal reaches its report on the demo workspace;
// docs/tasks.md): the four goals planned from the tool search and the accounts, run by the background runner one
// pass at a time through the one tool pipeline, writes queued under the key's approval rules, and the report's
// numbers checked against what the platforms answered. PGlite here; tasks.postgres.test.ts runs the races.
import {
  AuditLog, CreditsLedger, decideAndExecute, Directory, drainTasks, Mailer, revokeApiKey, Platforms, runTask, runTasks, startTask, taskInputOf,
  TaskRunnerConcurrency, TaskStore,
  WriteRequestStore, type Principal, type Task, type TaskReport, taskLeaseMs, taskRecheckMs
} from "@adgate/core"
import { drainReaders } from "@adgate/adapters-sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import { demo, keyPrincipal, makeMovingClock, taskWorld, tempDataDir } from "./support/taskWorld.ts"

const time = makeMovingClock()
const withClock = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Clock.Clock, time.clock)

const allScopes = ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write"] as const

/** Starts a task for `goal` and runs runner passes until it leaves planning and running (at most `passes`). */
const runGoal = (principal: Principal, goal: string, passes = 3) => Effect.gen(function* () {
  const started = yield* startTask(taskInputOf(principal, goal))
  assert.strictEqual(started.status, "planning")
  for (let i = 0; i < passes; i++) {
    const task = Option.getOrThrow(yield* (yield* TaskStore).find(started.id))
    if (task.status !== "planning" && task.status !== "running") break
    yield* runTasks(50)
  }
  return Option.getOrThrow(yield* (yield* TaskStore).find(started.id))
})

const reportOf = (task: Task) => task.report as unknown as TaskReport

/** The task's own audit entries (docs/tasks.md, Events and the audit trail), as the outbox readers leave them. */
const taskAudit = (task: Task) => Effect.gen(function* () {
  yield* drainReaders
  const entries = yield* (yield* AuditLog).list(task.workspaceId)
  return entries.filter((e) => e.detail["taskId"] === task.id).map((e) => e.action)
})

/** Above the threshold as the plan's rule says: cost per conversion over it, or spent over it with no conversion. */
const above = (threshold: number) => (row: TaskReport["reads"][number]["rows"][number]) =>
  !/paused|removed|archived|deleted/i.test(row.status ?? "") && row.spend > 0 &&
  (row.costPerConversion === null ? row.spend > threshold : row.costPerConversion > threshold)

describe("tasks on the demo workspace (PGlite)", () => {
  layer(taskWorld(tempDataDir()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("a weekly performance report reads every ad account for the last 7 days and adds up spend, conversions, cost per conversion and revenue", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const before = yield* (yield* CreditsLedger).balance(workspace.id)
      const task = yield* runGoal(principal, "weekly performance report for all ad accounts")
      assert.strictEqual(task.status, "completed")
      const report = reportOf(task)
      const plan = task.plan as unknown as { intent: string; reads: ReadonlyArray<{ tool: string; platform: string; arguments: Record<string, unknown> }> }
      assert.strictEqual(plan.intent, "report")
      // Every ad account (two Google Ads customers, one Meta ad account); GA4 and the store are not ad accounts.
      assert.deepStrictEqual(report.reads.map((r) => [r.platform, r.accountId]).sort(), [["gads", "3842019576"], ["gads", "5120946831"], ["meta", "act_1029384756"]])
      assert.isTrue(report.reads.every((r) => r.ok && r.rows.length > 0))
      assert.strictEqual(report.period?.days, 7)
      for (const read of plan.reads) assert.include(Object.values(read.arguments), report.period!.startDate)
      // The totals are the rows added up, and the numbers are real: money spent and conversions made.
      const rows = report.reads.flatMap((r) => r.rows)
      const spend = rows.reduce((a, r) => a + r.spend, 0)
      const conversions = rows.reduce((a, r) => a + r.conversions, 0)
      assert.closeTo(report.totals!.spend, spend, 0.02)
      assert.closeTo(report.totals!.conversions, conversions, 0.02)
      assert.closeTo(report.totals!.costPerConversion!, spend / conversions, 0.02)
      assert.isAbove(report.totals!.spend, 100)
      assert.isAbove(report.totals!.revenue, 0)
      assert.include(report.summary, "Spend")
      // The same numbers as a direct call of the platform's report for that range.
      const platforms = yield* Platforms
      const direct = yield* platforms.execute({
        workspaceId: workspace.id, tool: platforms.tools.find((t) => t.name === plan.reads[0]!.tool)!, arguments: plan.reads[0]!.arguments as never
      })
      const directTotals = (direct.body as { totals: { cost: number } }).totals
      assert.closeTo(report.reads.find((r) => r.step === "r1")!.totals!.spend, directTotals.cost, 0.02)
      // The task's own 5 credits and each report call's 3.
      assert.strictEqual(before - (yield* (yield* CreditsLedger).balance(workspace.id)), 5 + 3 * 3)
    })))

    it.effect("pausing campaigns whose cost per conversion over the last 7 days is above 50 queues exactly those for approval, mails the key's creator, and completes once they are decided and executed", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const task = yield* runGoal(principal, "pause campaigns whose cost per conversion over the last 7 days is above 50")
      assert.strictEqual(task.status, "waiting_for_approval")
      const report = reportOf(task)
      const expected = report.reads.flatMap((r) => r.rows.filter(above(50)).map((row) => row.id)).sort()
      assert.deepStrictEqual(report.changes.map((c) => c.target.id).sort(), expected)
      const names = report.changes.map((c) => c.target.name)
      for (const name of ["Generic – Tents", "Competitor – Terms", "Interests – Camping"]) assert.include(names, name)
      assert.notInclude(names, "Brand – Search")
      for (const change of report.changes) {
        assert.match(change.tool, /__pause_campaign$/)
        assert.strictEqual(change.status, "pending_approval")
        // The stored report keeps the request's id; its status link is rendered by REST and MCP when they answer.
        assert.match(change.requestId ?? "", /^rwq_/)
        assert.notProperty(change, "statusUrl")
      }
      // The connecting person (the key's creator) is mailed for each change that waits (spec §Events), by the
      // outbox's mail reader from the change's WriteQueued event: once, however often the readers are drained.
      yield* drainReaders
      yield* drainReaders
      const mails = (yield* (yield* Mailer).pending(1000)).filter((m) => m.to === admin.email)
      for (const change of report.changes) {
        const request = Option.getOrThrow(yield* (yield* WriteRequestStore).find(change.requestId!))
        const preview = yield* (yield* Platforms).preview({ workspaceId: workspace.id, tool: (yield* Platforms).tools.find((t) => t.name === change.tool)!, arguments: request.arguments })
        const named = mails.filter((m) => m.subject.includes(change.requestId!))
        assert.strictEqual(named.length, 1, `one mail names ${change.requestId}`)
        const mail = named[0]
        // The tool, the change summary, who can decide, and the link to it under Write approvals.
        assert.include(mail!.subject, "Approval needed in Demo: Pause a campaign")
        assert.include(mail!.text, preview.summary)
        assert.include(mail!.text, "Who can decide: a workspace admin or editor (Admin <admin@example.com>, Editor <editor@example.com>)")
        assert.include(mail!.text, `http://localhost:8787/workspaces/${workspace.id}/approvals/${change.requestId}`)
      }

      // Still waiting while one request is undecided; a pass before the re-check time does not even claim it.
      assert.strictEqual(yield* runTasks(50), 0)
      // Looked at again and again while it waits (more often than a running task may be claimed): it stays waiting.
      for (let i = 0; i < 12; i++) {
        time.advance(taskRecheckMs)
        assert.strictEqual(yield* runTasks(50), 1)
      }
      assert.strictEqual(Option.getOrThrow(yield* (yield* TaskStore).find(task.id)).status, "waiting_for_approval")
      const [first, ...rest] = report.changes
      yield* decideAndExecute({ id: first!.requestId!, workspaceId: workspace.id, deciderId: admin.id, decision: "approve", argumentsHash: (Option.getOrThrow(yield* (yield* WriteRequestStore).find(first!.requestId!))).argumentsHash })
      time.advance(taskRecheckMs)
      yield* runTasks(50)
      const stillWaiting = Option.getOrThrow(yield* (yield* TaskStore).find(task.id))
      assert.strictEqual(stillWaiting.status, rest.length === 0 ? "completed" : "waiting_for_approval")
      assert.strictEqual(reportOf(stillWaiting).changes.find((c) => c.requestId === first!.requestId)!.status, "executed")

      for (const change of rest) {
        const request = Option.getOrThrow(yield* (yield* WriteRequestStore).find(change.requestId!))
        yield* decideAndExecute({ id: request.id, workspaceId: workspace.id, deciderId: admin.id, decision: "approve", argumentsHash: request.argumentsHash })
      }
      time.advance(taskRecheckMs)
      yield* runTasks(50)
      const done = Option.getOrThrow(yield* (yield* TaskStore).find(task.id))
      assert.strictEqual(done.status, "completed")
      assert.isTrue(reportOf(done).changes.every((c) => c.status === "executed" && c.providerStatus === 200))
      assert.include(reportOf(done).summary, `Changed ${report.changes.length}`)
      // Every move of the runner is in the audit log once; looking again while it waited moved no status, so no entry.
      assert.deepStrictEqual(yield* taskAudit(done), ["task.started", "task.planned", "task.waiting_for_approval", "task.completed"])
    })))

    it.effect("raising the budget of the best campaign by 10 % picks the best return on ad spend (Brand – Search) and sets its daily budget +10 %, at once for a key that applies changes", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "apply")
      const task = yield* runGoal(principal, "raise the budget of the best campaign by 10 %")
      assert.strictEqual(task.status, "completed")
      const report = reportOf(task)
      const rows = report.reads.flatMap((r) => r.rows).filter((r) => r.conversions > 0 && !/paused|removed|archived/i.test(r.status ?? ""))
      const best = rows.reduce((a, b) => (b.roas! > a.roas! ? b : a))
      assert.strictEqual(best.name, "Brand – Search")
      assert.lengthOf(report.changes, 1)
      const change = report.changes[0]!
      assert.deepStrictEqual([change.target.name, change.tool, change.status, change.providerStatus], ["Brand – Search", "gads__update_campaign_budget", "executed", 200])
      assert.deepStrictEqual(change.arguments, { accountId: "3842019576", campaignId: "20481001", dailyBudget: 132 })
      assert.include(change.why, "120.00 → 132.00 (+10 %)")
      // The platform now has the new budget.
      const platforms = yield* Platforms
      const listed = yield* platforms.execute({ workspaceId: workspace.id, tool: platforms.tools.find((t) => t.name === "gads__list_campaigns")!, arguments: { accountId: "3842019576" } })
      const brand = (listed.body as { results: ReadonlyArray<{ id: string; dailyBudget: number }> }).results.find((c) => c.id === "20481001")
      assert.strictEqual(brand?.dailyBudget, 132)
    })))

    it.effect("finding products with no sales in 30 days reports the store's three unsold products", () => withClock(Effect.gen(function* () {
      const { workspace, editor } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, editor.id, ["tasks:read", "tasks:write"], "wait")
      // An editor's key cannot call platform tools (they act for an admin): nothing to plan with, said plainly.
      const refused = yield* runGoal(principal, "find products with no sales in 30 days")
      assert.strictEqual(refused.status, "failed")
      assert.include(reportOf(refused).failures[0]!.message, "No connected store has a tool this credential may call")

      const { admin } = yield* demo
      const task = yield* runGoal(yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait"), "find products with no sales in 30 days")
      assert.strictEqual(task.status, "completed")
      const report = reportOf(task)
      assert.deepStrictEqual(report.findings.map((f) => f.name).sort(), ["Canvas Camp Chair – Olive", "Hammock Stand Steel", "Vintage Enamel Mug Set"])
      assert.isTrue(report.findings.every((f) => f.platform === "shopify" && f.note.startsWith("0 units sold")))
      assert.deepStrictEqual(report.changes, [])
    })))

    it.effect("a goal the planner cannot read ends failed, with a report saying why and what it understood, and costs nothing", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const before = yield* (yield* CreditsLedger).balance(workspace.id)
      const poem = yield* runGoal(principal, "write a poem about tents")
      assert.strictEqual(poem.status, "failed")
      assert.strictEqual(reportOf(poem).failures[0]!.error, "GoalNotPlanned")
      assert.deepStrictEqual(yield* taskAudit(poem), ["task.started", "task.failed"])
      const failed = (yield* (yield* AuditLog).list(workspace.id)).find((e) => e.action === "task.failed" && e.detail["taskId"] === poem.id)
      assert.deepStrictEqual(failed?.detail["reasons"], ["GoalNotPlanned"])
      assert.include(reportOf(poem).failures[0]!.message, "performance reports")
      const vague = yield* runGoal(principal, "pause the bad campaigns over the last 30 days")
      assert.strictEqual(vague.status, "failed")
      assert.include(reportOf(vague).understood!, "pausing campaigns")
      assert.include(reportOf(vague).understood!, "30 days")
      assert.strictEqual(yield* (yield* CreditsLedger).balance(workspace.id), before)
    })))

    it.effect("a task the workspace's credits do not cover, or whose API key was revoked, ends failed saying so; nothing is charged", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const directory = yield* Directory
      const ledger = yield* CreditsLedger
      const balance = yield* ledger.balance(workspace.id)
      // Too few credits at the start: refused at once (402), no task.
      yield* directory.setCredits(workspace.id, 3)
      const refused = yield* Effect.flip(startTask(taskInputOf(principal, "weekly performance report for all ad accounts")))
      assert.deepStrictEqual(refused._tag === "InsufficientCredits" ? [refused.needed, refused.left] : refused._tag, [5, 3])
      // Covered at the start and spent meanwhile: the runner's charge refuses it and the task fails saying so.
      yield* directory.setCredits(workspace.id, balance)
      const created = yield* startTask(taskInputOf(principal, "weekly performance report for all ad accounts"))
      yield* directory.setCredits(workspace.id, 3)
      yield* runTasks(50)
      const poor = Option.getOrThrow(yield* (yield* TaskStore).find(created.id))
      assert.strictEqual(poor.status, "failed")
      assert.deepStrictEqual(reportOf(poor).failures.map((f) => [f.error, f.message]), [["InsufficientCredits", "A task costs 5 credits; 3 are left in this workspace."]])
      assert.strictEqual(yield* ledger.balance(workspace.id), 3)
      yield* directory.setCredits(workspace.id, balance)

      const started = yield* startTask(taskInputOf(principal, "weekly performance report for all ad accounts"))
      yield* revokeApiKey({ keyId: principal.apiKeyId!, workspaceId: workspace.id, actorId: admin.id })
      yield* runTasks(50)
      const revoked = Option.getOrThrow(yield* (yield* TaskStore).find(started.id))
      assert.strictEqual(revoked.status, "failed")
      assert.deepStrictEqual(reportOf(revoked).failures.map((f) => f.error), ["CredentialEnded"])
      assert.strictEqual(yield* ledger.balance(workspace.id), balance)
    })))

    it.effect("a task claimed by a runner that died is claimed again once its lease ends, and runs to its report", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const started = yield* startTask(taskInputOf(principal, "find products with no sales in 30 days"))
      const store = yield* TaskStore
      // A runner claims it and dies before doing anything.
      const now = yield* Clock.currentTimeMillis
      const held = (yield* store.claimRunnable(now, now + taskLeaseMs, 50)).find((t) => t.id === started.id)
      assert.isDefined(held)
      assert.strictEqual(yield* runTasks(50), 0)
      assert.strictEqual(Option.getOrThrow(yield* store.find(started.id)).status, "planning")
      time.advance(taskLeaseMs)
      yield* runTasks(50)
      const done = Option.getOrThrow(yield* store.find(started.id))
      assert.deepStrictEqual([done.status, done.attempt], ["completed", 2])
      assert.lengthOf(reportOf(done).findings, 3)
    })))

    it.effect("a runner whose claim was taken over after its lease ended loses its move (Conflict): nothing is decided on the new holder's claim, nothing charged, no event", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const started = yield* startTask(taskInputOf(principal, "find products with no sales in 30 days"))
      const store = yield* TaskStore
      const ledger = yield* CreditsLedger
      const balance = yield* ledger.balance(workspace.id)
      const now = yield* Clock.currentTimeMillis
      const stale = (yield* store.claimRunnable(now, now + taskLeaseMs, 50)).find((t) => t.id === started.id)!
      time.advance(taskLeaseMs)
      const later = yield* Clock.currentTimeMillis
      const current = (yield* store.claimRunnable(later, later + taskLeaseMs, 50)).find((t) => t.id === started.id)!
      assert.strictEqual(current.version, stale.version + 1)
      // The first runner wakes up and plans: its move to running is a compare-and-set on the claim it holds.
      const lost = yield* Effect.flip(runTask(stale))
      assert.strictEqual(lost._tag, "Conflict")
      assert.deepStrictEqual(yield* store.find(started.id), Option.some(current))
      assert.strictEqual(yield* ledger.balance(workspace.id), balance)
      assert.deepStrictEqual(yield* taskAudit(started), ["task.started"])
      // The holder runs it to its report.
      const done = yield* runTask(current)
      assert.strictEqual(done.status, "completed")
      assert.deepStrictEqual(yield* taskAudit(started), ["task.started", "task.planned", "task.completed"])
    })))

    it.effect("a runner pass runs the tasks it claimed side by side: their platform calls overlap", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const ids = [
        (yield* startTask(taskInputOf(principal, "weekly performance report for all ad accounts"))).id,
        (yield* startTask(taskInputOf(principal, "find products with no sales in 30 days"))).id
      ]
      // Each platform call takes 100 ms: one after the other, no two are ever in flight at once.
      const platforms = yield* Platforms
      let inFlight = 0
      let most = 0
      const slow: typeof platforms = {
        ...platforms,
        execute: (call) => Effect.gen(function* () {
          inFlight++
          most = Math.max(most, inFlight)
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
          inFlight--
          return yield* platforms.execute(call)
        })
      }
      yield* runTasks(50).pipe(Effect.provideService(Platforms, slow))
      for (const id of ids) assert.strictEqual(Option.getOrThrow(yield* (yield* TaskStore).find(id)).status, "completed")
      assert.isAtLeast(most, 2)
    })))

    it.effect("the background runner works through a queue of due tasks at once, batch after batch, instead of one batch every 5 seconds", () => withClock(Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      const principal = yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait")
      const ids: Array<Task["id"]> = []
      for (let i = 0; i < 5; i++) ids.push((yield* startTask(taskInputOf(principal, "find products with no sales in 30 days"))).id)
      // Two at a time: one pass of the background loop claims 2, 2, then 1 and stops.
      const claimed = yield* drainTasks().pipe(Effect.provideService(TaskRunnerConcurrency, 2))
      assert.isAtLeast(claimed, 5)
      for (const id of ids) assert.strictEqual(Option.getOrThrow(yield* (yield* TaskStore).find(id)).status, "completed")
    })))
  })
})

describe("tasks survive a restart (PGlite folder re-opened)", () => {
  it.live("a task started before the server stopped is run by the next server on the same data folder", () => withClock(Effect.gen(function* () {
    const dataDir = tempDataDir()
    const started = yield* Effect.gen(function* () {
      const { workspace, admin } = yield* demo
      return yield* startTask(taskInputOf(yield* keyPrincipal(workspace.id, admin.id, allScopes, "wait"), "weekly performance report for all ad accounts"))
    }).pipe(Effect.provide(taskWorld(dataDir)))
    const after = yield* Effect.gen(function* () {
      yield* runTasks(50)
      return Option.getOrThrow(yield* (yield* TaskStore).find(started.id))
    }).pipe(Effect.provide(taskWorld(dataDir)))
    assert.strictEqual(after.status, "completed")
    assert.lengthOf(reportOf(after).reads, 3)
  })), 180_000)
})

