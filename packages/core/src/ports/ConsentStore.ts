// The consent store: the consent pages shown between /oauth/authorize and the decision. Every save is compare-and-set
// on `version`: a store saves `next` only if the stored version is still `next.version - 1`, else Conflict.
import { Context, Effect, Option } from "effect"
import type { ConsentPage, ConsentPageId } from "../authorize/ConsentPage.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>
type Cas = Effect.Effect<void, Conflict | StoreUnavailable>

export interface ConsentStoreShape {
  readonly insert: (page: ConsentPage) => Fx<void>
  readonly find: (id: ConsentPageId) => Fx<Option.Option<ConsentPage>>
  readonly save: (next: ConsentPage) => Cas
}
export class ConsentStore extends Context.Service<ConsentStore, ConsentStoreShape>()("core/ports/ConsentStore") {}
