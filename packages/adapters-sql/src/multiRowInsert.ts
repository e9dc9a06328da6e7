// Multi-row inserts within one statement's parameters: the outbox readers write a pass's audit entries and mails in
// one insert each (bench/README.md, round 8), and a list handed to a store can be longer than one statement holds.
import { Array as Arr, Effect } from "effect"

/**
 * Rows per insert statement: a statement carries at most 32 767 parameters (PostgreSQL's wire protocol counts them
 * in 16 bits: the driver refuses more, PGlite wraps the count and fails), so 1000 rows fit any table of up to 32
 * columns (mail_outbox has 9, audit_entries fewer than 20).
 */
export const rowsPerInsert = 1000

/** `insert` over `rows` in order, `rowsPerInsert` at a time: one statement for a pass's rows, none for no rows. */
export const insertRowsInChunks = <Row, E, R>(
  rows: ReadonlyArray<Row>,
  insert: (chunk: Arr.NonEmptyReadonlyArray<Row>) => Effect.Effect<unknown, E, R>
): Effect.Effect<void, E, R> => Effect.forEach(Arr.chunksOf(rows, rowsPerInsert), insert, { discard: true })
