// A map of versioned records with compare-and-set save: the in-memory twin of `UPDATE … WHERE version = $n`.
import { Effect, Option, Ref } from "effect"
import { Conflict } from "../ports/errors.ts"

export interface VersionedTable<A extends { readonly version: number }> {
  readonly ref: Ref.Ref<ReadonlyMap<string, A>>
  readonly insert: (key: string, value: A) => Effect.Effect<void>
  readonly find: (key: string) => Effect.Effect<Option.Option<A>>
  readonly save: (key: string, next: A) => Effect.Effect<void, Conflict>
  readonly all: Effect.Effect<ReadonlyArray<A>>
}

export const makeVersionedTable = <A extends { readonly version: number }>(entity: string) =>
  Effect.map(Ref.make<ReadonlyMap<string, A>>(new Map()), (ref): VersionedTable<A> => ({
    ref,
    insert: (key, value) => Ref.update(ref, (m) => new Map(m).set(key, value)),
    find: (key) => Effect.map(Ref.get(ref), (m) => Option.fromNullishOr(m.get(key))),
    // Ref.modify compares and sets in one atomic step, like the SQL WHERE version = … clause.
    save: (key, next) =>
      Ref.modify(ref, (m): readonly [boolean, ReadonlyMap<string, A>] => {
        const stored = m.get(key)
        const current = stored !== undefined && stored.version === next.version - 1
        return [current, current ? new Map(m).set(key, next) : m]
      }).pipe(Effect.flatMap((saved) => (saved ? Effect.void : Effect.fail(new Conflict({ entity }))))),
    all: Effect.map(Ref.get(ref), (m) => [...m.values()])
  }))
