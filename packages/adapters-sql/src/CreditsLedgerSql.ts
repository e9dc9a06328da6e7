// CreditsLedger on SQL (spec §Limits: Credits; §REST 402; checklist 178): the balance is workspaces.credits, the
// column the Directory reads and sets. Every move (a charge, a grant, a balance set) is one statement that locks the
// workspace's row, decides on the balance it locked, changes it and writes its entry: they commit together or not at
// all, so N parallel charges never take the balance below zero, a refusal's `left` is the balance it was refused on,
// and a balance set answers exactly the balance it replaced.
// The CreditEntry Schema is the entries' only list of columns (tableRow).
import { creditDecimals, CreditEntry, roundCredits, CreditsLedger, CreditsWorkspaceNotFound, InsufficientCredits, InvalidCreditAmount, isValidCreditAmount, isValidCreditBalance } from "@adgate/core"
import type { CreditMovement, StoreUnavailable, WorkspaceId } from "@adgate/core"
import { Effect, Layer } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { decodeRows } from "./decodeRow.ts"
import { tableRow } from "./tableRow.ts"
import { unavailable } from "./unavailable.ts"
import { limitOffset } from "./pageSql.ts"

const entryRow = tableRow(CreditEntry, { table: "credit_entries", key: "workspaceId" })

/** What a move found and left: the balance it locked, and the one it set (null: its condition did not hold). */
interface Moved {
  readonly creditsBefore: number
  readonly creditsAfter: number | null
}

export const CreditsLedgerSql = Layer.effect(CreditsLedger, Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decodeEntries = decodeRows(CreditEntry, { operation: "CreditsLedger.entries", table: "credit_entries", key: "workspace_id" })
  /**
   * One statement: `held` takes the workspace's row FOR UPDATE (the latest committed balance, which no other move
   * changes until this one commits), `moved` sets credits to `to` where `when` holds (both over `held.credits`), and
   * `entry` writes the move's entry, the encoded row with the `computed` columns (over `moved`), where `written`
   * holds. No row: no such workspace.
   */
  const move = (operation: string, m: Omit<CreditMovement, "amount">, kind: "charge" | "grant", amount: number, parts: {
    readonly to: Statement.Fragment
    readonly when: Statement.Fragment
    readonly written: Statement.Fragment
    readonly computed: { readonly [field: string]: Statement.Fragment }
  }): Effect.Effect<Moved | null, StoreUnavailable> =>
    entryRow.encode({
      workspaceId: m.workspaceId, kind, amount, balanceAfter: 0, reason: m.reason, reference: m.reference, at: m.now
    }, `CreditsLedger.${operation}`).pipe(
      Effect.flatMap((entry) => sql<{ readonly creditsBefore: number; readonly creditsAfter: number | null }>`WITH held AS (
          SELECT id, credits FROM workspaces WHERE id = ${m.workspaceId} FOR UPDATE
        ), moved AS (
          UPDATE workspaces w SET credits = ${parts.to} FROM held
          WHERE w.id = held.id AND ${parts.when}
          RETURNING w.id, held.credits AS credits_before, w.credits AS credits_after
        ), entry AS (
          INSERT INTO credit_entries ${entryRow.insertSelect(entry, { balanceAfter: sql`moved.credits_after`, ...parts.computed })}
          FROM moved WHERE ${parts.written}
        )
        SELECT held.credits AS credits_before, moved.credits_after FROM held LEFT JOIN moved ON TRUE`),
      unavailable(`CreditsLedger.${operation}`),
      Effect.map((rows) => rows[0] === undefined ? null : {
        creditsBefore: Number(rows[0].creditsBefore),
        creditsAfter: rows[0].creditsAfter === null ? null : Number(rows[0].creditsAfter)
      })
    )
  const notFound = (workspaceId: WorkspaceId) => Effect.fail(new CreditsWorkspaceNotFound({ workspaceId }))
  // A balance kept to core's creditDecimals (roundCredits): computed in numeric and rounded, never a double's
  // difference (10.3 − 3 = 7.300000000000001). A double enters numeric through its text, the shortest that reads back
  // as the same double (extra_float_digits ≥ 1, PostgreSQL's default): a direct cast keeps only 15 significant digits
  // (1234567890.123456 would lose its last decimal). An amount enters as JavaScript's shortest text of it, likewise.
  const decimals = sql.literal(String(creditDecimals))
  const credits = (numeric: Statement.Fragment) => sql`round(${numeric}, ${decimals})::double precision`
  const exact = (column: Statement.Fragment) => sql`${column}::text::numeric`
  const amountOf = (amount: number) => sql`${String(amount)}::numeric`
  return CreditsLedger.of({
    balance: (workspaceId) =>
      sql<{ readonly credits: number }>`SELECT credits FROM workspaces WHERE id = ${workspaceId}`.pipe(
        unavailable("CreditsLedger.balance"),
        Effect.flatMap((rows) => rows[0] === undefined ? notFound(workspaceId) : Effect.succeed(Number(rows[0].credits)))
      ),
    // The amount rounded as the balance is kept; the balance compared as kept, so one an older version left at
    // 2.9999999999999996 pays a charge of 3 (and ends at 0, never below).
    charge: (m) => {
      if (!isValidCreditAmount(m.amount)) return Effect.fail(new InvalidCreditAmount({ amount: m.amount }))
      const amount = roundCredits(m.amount)
      return move("charge", m, "charge", amount, {
        to: credits(sql`${exact(sql`held.credits`)} - ${amountOf(amount)}`),
        when: sql`round(${exact(sql`held.credits`)}, ${decimals}) >= ${amountOf(amount)}`, written: sql`TRUE`, computed: {}
      }).pipe(Effect.flatMap((moved): Effect.Effect<number, InsufficientCredits | CreditsWorkspaceNotFound> =>
        moved === null ? notFound(m.workspaceId)
          : moved.creditsAfter === null ? Effect.fail(new InsufficientCredits({ workspaceId: m.workspaceId, needed: m.amount, left: moved.creditsBefore }))
          : Effect.succeed(moved.creditsAfter)))
    },
    grant: (m) => !isValidCreditAmount(m.amount) ? Effect.fail(new InvalidCreditAmount({ amount: m.amount })) :
      move("grant", m, "grant", roundCredits(m.amount), {
        to: credits(sql`${exact(sql`held.credits`)} + ${amountOf(roundCredits(m.amount))}`), when: sql`TRUE`, written: sql`TRUE`, computed: {}
      }).pipe(Effect.flatMap((moved) => moved === null || moved.creditsAfter === null ? notFound(m.workspaceId) : Effect.succeed(moved.creditsAfter))),
    setBalance: (s) => !isValidCreditBalance(s.balance) ? Effect.fail(new InvalidCreditAmount({ amount: s.balance })) :
      move("setBalance", s, "charge", 0, {
        // Rounded by core's rule (roundCredits), as the memory ledger and every move round: PostgreSQL's decimal round
        // of the balance's text would differ from it on a half-way digit (0.0001245: 0.000125 against 0.000124).
        to: sql`${amountOf(roundCredits(s.balance))}::double precision`, when: sql`TRUE`,
        // The difference is the entry: a grant up to the balance set, a charge down to it; none when unchanged.
        written: sql`moved.credits_after <> moved.credits_before`,
        computed: {
          kind: sql`CASE WHEN moved.credits_after > moved.credits_before THEN 'grant' ELSE 'charge' END`,
          amount: credits(sql`abs(${exact(sql`moved.credits_after`)} - ${exact(sql`moved.credits_before`)})`)
        }
      }).pipe(Effect.flatMap((moved) => moved === null || moved.creditsAfter === null
        ? notFound(s.workspaceId)
        : Effect.succeed({ before: moved.creditsBefore, after: moved.creditsAfter }))),
    entries: (workspaceId, limit) =>
      sql`SELECT * FROM credit_entries WHERE workspace_id = ${workspaceId} ORDER BY position DESC LIMIT ${Math.max(0, Math.floor(limit))}`.pipe(
        unavailable("CreditsLedger.entries"),
        Effect.flatMap(decodeEntries)
      ),
    entriesPage: (workspaceId, page) =>
      sql`SELECT * FROM credit_entries WHERE workspace_id = ${workspaceId} ORDER BY position DESC ${limitOffset(sql, page)}`.pipe(
        unavailable("CreditsLedger.entriesPage"),
        Effect.flatMap(decodeEntries)
      )
  })
}))
