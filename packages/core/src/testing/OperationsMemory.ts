// In-memory twins of the operations ports (write requests, idempotency keys, credits ledger, tasks, tool usage),
// for tests and embedding. They pass the same contract suite as the SQL stores (packages/contract-kit).
import { Effect, Layer, Option, Ref, Semaphore } from "effect"
import { isDueToExpire } from "../approvals/transitionWriteRequest.ts"
import { outcomeOfWriteRequest, type WriteRequest, type WriteRequestId } from "../approvals/WriteRequest.ts"
import { type CreditEntry, type CreditMovement, isValidCreditAmount, isValidCreditBalance, roundCredits } from "../credits/CreditEntry.ts"
import { CreditsWorkspaceNotFound, InsufficientCredits, InvalidCreditAmount } from "../credits/errors.ts"
import { type ClaimOutcome, idempotencyKeyLifetimeMs, type IdempotencyRecord } from "../idempotency/IdempotencyRecord.ts"
import type { Task } from "../tasks/Task.ts"
import { claimTask, isTaskDue } from "../tasks/transitionTask.ts"
import { credentialOfUsage, type ToolUsage } from "../tools/ToolUsage.ts"
import { startOfUtcDay } from "../guardrails/Guardrails.ts"
import { CreditsLedger } from "../ports/CreditsLedger.ts"
import { Directory } from "../ports/Directory.ts"
import { StoreUnavailable } from "../ports/errors.ts"
import { entriesOfPage } from "../ports/Page.ts"
import { IdempotencyStore } from "../ports/IdempotencyStore.ts"
import { TaskStore } from "../ports/TaskStore.ts"
import { ToolUsageLog } from "../ports/ToolUsageLog.ts"
import { WriteRequestStore } from "../ports/WriteRequestStore.ts"
import { GuardrailStoreMemory } from "./GuardrailStoreMemory.ts"
import { makeVersionedTable } from "./versioned.ts"
import { EventOutboxMemory, memoryOutboxReaders } from "./EventOutboxMemory.ts"
import { TransactorMemory } from "./StoresMemory.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

const newestFirst = <A extends { readonly id: string }>(at: (a: A) => number) => (a: A, b: A) =>
  at(b) - at(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export const WriteRequestStoreMemory = Layer.effect(WriteRequestStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<WriteRequest>("write_request")
  return WriteRequestStore.of({
    insert: (request) => table.insert(request.id, request),
    find: table.find,
    save: (next) => table.save(next.id, next),
    listByRequester: (workspaceId, requester, before, limit) =>
      Effect.map(table.all, (all) =>
        all.filter((r) => r.workspaceId === workspaceId &&
          (requester.connectionId !== null ? r.connectionId === requester.connectionId : r.apiKeyId === requester.apiKeyId) &&
          (before === null || r.createdAt < before.createdAt || (r.createdAt === before.createdAt && r.id < before.id)))
          .sort(newestFirst((r) => r.createdAt))
          .slice(0, Math.max(0, limit))),
    listPending: (workspaceId) =>
      Effect.map(table.all, (all) =>
        all.filter((r) => r.workspaceId === workspaceId && r.status === "pending_approval")
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))),
    listDecided: (workspaceId, outcome, page) =>
      Effect.map(table.all, (all) =>
        entriesOfPage(all.filter((r) => {
          const of = outcomeOfWriteRequest(r)
          return r.workspaceId === workspaceId && of !== null && (outcome === null || of === outcome)
        }).sort(newestFirst((r) => r.updatedAt)), page)),
    // One Ref.modify: every due request moves once, as the SQL UPDATE … WHERE status = 'pending_approval' does.
    expireDue: (now) =>
      Ref.modify(table.ref, (m): readonly [ReadonlyArray<WriteRequestId>, ReadonlyMap<string, WriteRequest>] => {
        const due = [...m.values()].filter((r) => isDueToExpire(r, now))
        if (due.length === 0) return [[], m]
        const next = new Map(m)
        for (const r of due) next.set(r.id, { ...r, status: "expired", version: r.version + 1, updatedAt: now })
        return [due.map((r) => r.id), next]
      }),
    listResumable: (now, decidedBefore, limit) =>
      Effect.map(table.all, (all) =>
        all.filter((r) => r.status === "approved" && (r.leaseUntil === null ? (r.decidedAt ?? 0) <= decidedBefore : r.leaseUntil <= now))
          .sort((a, b) => (a.decidedAt ?? 0) - (b.decidedAt ?? 0) || (a.id < b.id ? -1 : 1))
          .slice(0, Math.max(0, limit)))
  })
}))

export const IdempotencyStoreMemory = Layer.effect(IdempotencyStore, Effect.gen(function* () {
  const records = yield* Ref.make<ReadonlyMap<string, IdempotencyRecord>>(new Map())
  const at = (scope: string, key: string) => JSON.stringify([scope, key])
  return IdempotencyStore.of({
    claim: (scope, key, requestHash, now, ttlMs) =>
      Ref.modify(records, (m): readonly [ClaimOutcome, ReadonlyMap<string, IdempotencyRecord>] => {
        const found = m.get(at(scope, key))
        // A lapsed in-flight record is taken again only by the same payload (its platform token is the same).
        const free = found === undefined || (found.expiresAt <= now &&
          (found.state === "completed" || found.requestHash === requestHash || found.createdAt + idempotencyKeyLifetimeMs <= now))
        if (free) {
          const record: IdempotencyRecord = {
            scope, key, requestHash, state: "in_flight", response: null, createdAt: now, expiresAt: now + ttlMs
          }
          return [{ _tag: "Claimed" }, new Map(m).set(at(scope, key), record)]
        }
        if (found === undefined || found.requestHash !== requestHash) return [{ _tag: "Mismatch" }, m]
        if (found.state === "in_flight" || found.response === null) return [{ _tag: "InFlight" }, m]
        return [{ _tag: "Completed", response: found.response }, m]
      }),
    complete: (scope, key, claimedAt, response, expiresAt) =>
      Ref.update(records, (m) => {
        const found = m.get(at(scope, key))
        return found === undefined || found.state !== "in_flight" || found.createdAt !== claimedAt
          ? m
          : new Map(m).set(at(scope, key), { ...found, state: "completed", response, expiresAt })
      }),
    release: (scope, key, claimedAt) =>
      Ref.update(records, (m) => {
        const found = m.get(at(scope, key))
        if (found?.state !== "in_flight" || found.createdAt !== claimedAt) return m
        const next = new Map(m)
        next.delete(at(scope, key))
        return next
      })
  })
}))

/**
 * The ledger over the Directory's workspaces: the balance is `Workspace.credits`, read and set through the Directory
 * (one source of truth). A semaphore makes check-and-take one step, as the SQL `UPDATE … WHERE credits >= $n` is.
 */
export const CreditsLedgerMemory = Layer.effect(CreditsLedger, Effect.gen(function* () {
  const directory = yield* Directory
  const entries = yield* Ref.make<ReadonlyArray<CreditEntry>>([])
  const lock = yield* Semaphore.make(1)
  const unavailable = (operation: string) => Effect.mapError((error: { readonly message: string }) =>
    new StoreUnavailable({ operation: `CreditsLedger.${operation}`, message: error.message }))
  const balanceOf = (operation: string, workspaceId: WorkspaceId) =>
    directory.workspace(workspaceId).pipe(
      unavailable(operation),
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new CreditsWorkspaceNotFound({ workspaceId })),
        onSome: (w) => Effect.succeed(w.credits)
      }))
    )
  /**
   * Under the caller's lock: the balance, then `to` it, with the entry of the difference (a charge or grant of
   * `amount`, or none when unchanged); answers the balance it replaced.
   */
  const setTo = (operation: string, m: Omit<CreditMovement, "amount">, to: (left: number) => { readonly balanceAfter: number; readonly amount: number }) =>
    Effect.gen(function* () {
      const before = yield* balanceOf(operation, m.workspaceId)
      const { balanceAfter, amount } = to(before)
      if (balanceAfter === before) return before
      yield* directory.setCredits(m.workspaceId, balanceAfter).pipe(unavailable(operation))
      yield* Ref.update(entries, (all) => [...all, {
        workspaceId: m.workspaceId, kind: balanceAfter > before ? "grant" as const : "charge" as const,
        amount, balanceAfter, reason: m.reason, reference: m.reference, at: m.now
      }])
      return before
    })
  /** A charge or grant of the amount rounded to creditDecimals, where `guard` lets it (over the balance and that amount). */
  const move = <E>(operation: "charge" | "grant", m: CreditMovement, guard: (left: number, amount: number) => Effect.Effect<void, E>) =>
    Effect.gen(function* () {
      if (!isValidCreditAmount(m.amount)) return yield* new InvalidCreditAmount({ amount: m.amount })
      const amount = roundCredits(m.amount)
      yield* Effect.flatMap(balanceOf(operation, m.workspaceId), (left) => guard(left, amount))
      const after = (left: number) => roundCredits(operation === "charge" ? left - amount : left + amount)
      return after(yield* setTo(operation, m, (left) => ({ balanceAfter: after(left), amount })))
    }).pipe(lock.withPermits(1))
  return CreditsLedger.of({
    balance: (workspaceId) => balanceOf("balance", workspaceId),
    // The balance as kept (rounded): one an older version left at 2.9999999999999996 pays a charge of 3.
    charge: (m) => move("charge", m, (left, amount) =>
      roundCredits(left) < amount ? Effect.fail(new InsufficientCredits({ workspaceId: m.workspaceId, needed: m.amount, left })) : Effect.void),
    grant: (m) => move("grant", m, () => Effect.void),
    setBalance: (setting) => {
      if (!isValidCreditBalance(setting.balance)) return Effect.fail(new InvalidCreditAmount({ amount: setting.balance }))
      const after = roundCredits(setting.balance)
      return Effect.map(setTo("setBalance", setting, (left) => ({ balanceAfter: after, amount: roundCredits(Math.abs(after - left)) })), (before) => ({ before, after }))
        .pipe(lock.withPermits(1))
    },
    entries: (workspaceId, limit) =>
      Effect.map(Ref.get(entries), (all) => all.filter((e) => e.workspaceId === workspaceId).reverse().slice(0, Math.max(0, limit))),
    entriesPage: (workspaceId, page) =>
      Effect.map(Ref.get(entries), (all) => entriesOfPage(all.filter((e) => e.workspaceId === workspaceId).reverse(), page))
  })
}))

export const TaskStoreMemory = Layer.effect(TaskStore, Effect.gen(function* () {
  const table = yield* makeVersionedTable<Task>("task")
  return TaskStore.of({
    insert: (task) => table.insert(task.id, task),
    find: table.find,
    save: (next) => table.save(next.id, next),
    list: (workspaceId, query) =>
      Effect.map(table.all, (all) =>
        all.filter((t) => t.workspaceId === workspaceId && (query.status === null || t.status === query.status))
          .sort(newestFirst((t) => t.createdAt))
          .slice(Math.max(0, query.skip), Math.max(0, query.skip) + Math.max(0, query.limit))),
    // One Ref.modify: the in-memory twin of UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED).
    claimRunnable: (now, leaseUntil, limit) =>
      Ref.modify(table.ref, (m): readonly [ReadonlyArray<Task>, ReadonlyMap<string, Task>] => {
        const due = [...m.values()]
          .filter((t) => isTaskDue(t, now))
          .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : 1))
          .slice(0, Math.max(0, limit))
          .map((t) => claimTask(t, leaseUntil))
        const next = new Map(m)
        for (const t of due) next.set(t.id, t)
        return [due, next]
      })
  })
}))

export const ToolUsageLogMemory = Layer.effect(ToolUsageLog, Effect.gen(function* () {
  const usages = yield* Ref.make<ReadonlyArray<ToolUsage>>([])
  return ToolUsageLog.of({
    record: (usage) => Ref.update(usages, (all) => [...all, usage]),
    list: (workspaceId, limit) =>
      Effect.map(Ref.get(usages), (all) =>
        all.map((u, i) => [u, i] as const).filter(([u]) => u.workspaceId === workspaceId)
          .sort(([a, i], [b, j]) => b.at - a.at || j - i).slice(0, Math.max(0, limit)).map(([u]) => u)),
    changesSince: (workspaceId, since, budgetTarget) =>
      Effect.map(Ref.get(usages), (all) => {
        const changes = all.filter((u) => u.workspaceId === workspaceId && u.kind === "write" && u.outcome === "succeeded" && u.at >= since)
        // Recorded in order: the first of the target's is its first change since `since` (the earliest `at`).
        const first = budgetTarget === undefined || budgetTarget === null ? undefined
          : changes.filter((u) => u.budgetTarget === budgetTarget).sort((a, b) => a.at - b.at)[0]
        return { changes: changes.length, budgetBefore: first?.budgetFrom ?? null }
      }),
    usageByCredentialAndDay: (workspaceId, from, to, only) =>
      Effect.map(Ref.get(usages), (all) => {
        const days = new Map<string, { credentialId: string; day: number; calls: number; credits: number }>()
        for (const u of all) {
          const credentialId = credentialOfUsage(u)
          if (u.workspaceId !== workspaceId || u.at < from || u.at >= to || credentialId === null) continue
          if (only !== undefined && credentialId !== only) continue
          const day = startOfUtcDay(u.at)
          const key = `${day} ${credentialId}`
          const sum = days.get(key) ?? { credentialId, day, calls: 0, credits: 0 }
          days.set(key, { ...sum, calls: sum.calls + 1, credits: sum.credits + u.credits })
        }
        return [...days.values()].sort((a, b) => a.day - b.day || (a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0))
      }),
    lastCalls: (workspaceId, credentialIds) =>
      Effect.map(Ref.get(usages), (all) => {
        const latest = new Map<string, number>()
        for (const u of all) {
          const credentialId = credentialOfUsage(u)
          if (u.workspaceId !== workspaceId || credentialId === null || !credentialIds.includes(credentialId)) continue
          latest.set(credentialId, Math.max(latest.get(credentialId) ?? u.at, u.at))
        }
        return [...latest].map(([credentialId, at]) => ({ credentialId, at }))
      })
  })
}))

/**
 * Write requests, idempotency keys, credits, tasks, tool usage and guardrails in memory, with the (non-rolling-back)
 * Transactor and an outbox for memoryOutboxReaders that their commands run on; the ledger reads the given Directory.
 */
export const OperationsMemory = Layer.mergeAll(
  TransactorMemory, EventOutboxMemory(memoryOutboxReaders), WriteRequestStoreMemory, IdempotencyStoreMemory, CreditsLedgerMemory,
  TaskStoreMemory, ToolUsageLogMemory, GuardrailStoreMemory
)
