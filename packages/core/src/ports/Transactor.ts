// Atomic units of work across the storage ports (brief: "nothing is lost on a fault"; architecture §Persistence):
// a service that writes more than one row runs those writes through `atomically`, so a failing store leaves none.
import { Context, Effect } from "effect"
import type { StoreUnavailable } from "./errors.ts"

export interface TransactorShape {
  /**
   * Runs `effect` so that every store write inside it happens together or not at all: when `effect` fails (any
   * error, including a store's StoreUnavailable), none of its writes remain. StoreUnavailable when the unit itself
   * cannot begin or commit. Nested calls join the outer unit (a failing inner one undoes only its own writes).
   * A refusal whose writes must stay (a counted failed attempt, a detected reuse) must therefore be returned as a
   * value out of the unit and failed after it.
   */
  readonly atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
  /**
   * `atomically`, holding the exclusive lock named `key` for the whole unit: units under one key run one after the
   * other, across processes. For a check that must still hold when its action lands (check-then-act): a workspace's
   * changes-per-day and spend caps are checked and the write applied under "tool-writes:<workspace>".
   */
  readonly exclusively: (key: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreUnavailable, R>
}
export class Transactor extends Context.Service<Transactor, TransactorShape>()("core/ports/Transactor") {}
