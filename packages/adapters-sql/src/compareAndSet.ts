// The outcome of a compare-and-set `UPDATE … WHERE <key> = $1 AND version = $2 RETURNING <key>` (architecture
// §Persistence is compare-and-set): one row updated is saved; none means a stale version or a missing row.
import { Conflict } from "@adgate/core"
import { Effect } from "effect"

export const compareAndSet = (entity: string) => (rows: ReadonlyArray<unknown>): Effect.Effect<void, Conflict> =>
  rows.length === 1 ? Effect.void : Effect.fail(new Conflict({ entity }))
