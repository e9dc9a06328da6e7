// CreditsLedger on SQL (spec §Limits: Credits; §REST 402; checklist 178): the balance is workspaces.credits, the
// column the Directory reads and sets. A charge is one statement: the conditional decrement and its entry row commit
// together or not at all, so N parallel charges never take the balance below zero.
import { CreditEntry, CreditsLedger, CreditsWorkspaceNotFound, InsufficientCredits, InvalidCreditAmount, isValidCreditAmount } from "@adgate/core"
import type { CreditMovement, StoreUnavailable, WorkspaceId } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { unavailable } from "./unavailable.ts"

export const CreditsLedgerSql = Layer.effect(CreditsLedger, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decodeEntries = decodeRows(CreditEntry, { operation: "CreditsLedger.entries", table: "credit_entries", key: "workspace_id" })
  const balance = (operation: string, workspaceId: WorkspaceId): Effect.Effect<number, CreditsWorkspaceNotFound | StoreUnavailable> =>
    sql<{ readonly credits: number }>`SELECT credits FROM workspaces WHERE id = ${workspaceId}`.pipe(
      unavailable(`CreditsLedger.${operation}`),
      Effect.flatMap((rows) => rows[0] === undefined
        ? Effect.fail(new CreditsWorkspaceNotFound({ workspaceId }))
        : Effect.succeed(Number(rows[0].credits)))
    )
  /** Applies `delta` where `guard` holds, writing the entry in the same statement; answers the new balance, if any. */
  const move = (kind: "charge" | "grant", m: CreditMovement) => {
    const delta = kind === "charge" ? -m.amount : m.amount
    return sql<{ readonly credits: number }>`WITH moved AS (
        UPDATE workspaces SET credits = credits + ${delta}::double precision
        WHERE id = ${m.workspaceId} AND (${kind}::text = 'grant' OR credits >= ${m.amount}::double precision)
        RETURNING id, credits
      ), entry AS (
        INSERT INTO credit_entries (workspace_id, kind, amount, balance_after, reason, reference, at)
        SELECT id, ${kind}::text, ${m.amount}::double precision, credits, ${m.reason}::text, ${m.reference}::text, ${m.now}::bigint
        FROM moved
      )
      SELECT credits FROM moved`.pipe(
      unavailable(`CreditsLedger.${kind}`),
      Effect.map((rows) => (rows[0] === undefined ? null : Number(rows[0].credits)))
    )
  }
  const charge = (m: CreditMovement, attempts: number): Effect.Effect<number, InsufficientCredits | CreditsWorkspaceNotFound | StoreUnavailable> =>
    Effect.gen(function* () {
      const after = yield* move("charge", m)
      if (after !== null) return after
      const left = yield* balance("charge", m.workspaceId)
      // A grant committed between the two statements: the balance may cover it now, so try again.
      if (left >= m.amount && attempts > 1) return yield* charge(m, attempts - 1)
      return yield* new InsufficientCredits({ workspaceId: m.workspaceId, needed: m.amount, left })
    })
  return CreditsLedger.of({
    balance: (workspaceId) => balance("balance", workspaceId),
    charge: (m) => isValidCreditAmount(m.amount) ? charge(m, 3) : Effect.fail(new InvalidCreditAmount({ amount: m.amount })),
    grant: (m) =>
      isValidCreditAmount(m.amount)
        ? Effect.flatMap(move("grant", m), (after) =>
          after === null ? Effect.fail(new CreditsWorkspaceNotFound({ workspaceId: m.workspaceId })) : Effect.succeed(after))
        : Effect.fail(new InvalidCreditAmount({ amount: m.amount })),
    entries: (workspaceId, limit) =>
      sql`SELECT workspace_id, kind, amount, balance_after, reason, reference, at FROM credit_entries
        WHERE workspace_id = ${workspaceId} ORDER BY position DESC LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("CreditsLedger.entries"),
        Effect.flatMap(decodeEntries)
      )
  })
}))
