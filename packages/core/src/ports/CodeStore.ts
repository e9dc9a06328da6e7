// The authorization code store. Codes are found by the SHA-256 of their value, never kept in clear; every save is
// compare-and-set on `version`: a store saves `next` only if the stored version is still `next.version - 1`, else Conflict.
import { Context, Effect, Option } from "effect"
import type { AuthorizationCode } from "../codes/AuthorizationCode.ts"
import type { ClientGone } from "../codes/errors.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { FollowingWrites } from "./FollowingWrites.ts"
import type { SecretHash } from "./Secrets.ts"
import type { ClientId } from "../clients/Client.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>
type Cas = Effect.Effect<void, Conflict | StoreUnavailable>

export interface CodeStoreShape {
  readonly insert: (code: AuthorizationCode) => Fx<void>
  readonly findByHash: (hash: SecretHash) => Fx<Option.Option<AuthorizationCode>>
  readonly save: (next: AuthorizationCode) => Cas
  /**
   * `save`, and when it matches `follows` too, as one atomic write (SQL: one statement, no transaction), made only
   * while the code's client (as the ClientStore of the same database keeps it) is usable: ClientGone, nothing
   * written, when it is removed or gone. A removal and this write must see each other: a removal that commits
   * before the write is seen by it, and one that starts during it waits for it, so that the removal's ending of the
   * app's connections sees the connection opened here (codes/exchangeCode.ts; the contract kit's race "code exchanges
   * racing their app's removal"). Optional: without it the command runner writes the same in a unit of work
   * (commands/runCommand.ts) and the exchange re-reads the client after committing instead.
   */
  readonly saveHoldingClient?: (next: AuthorizationCode, follows: FollowingWrites) => Effect.Effect<void, Conflict | ClientGone | StoreUnavailable>
  /** Whether a code still kept was issued to this client with this PKCE challenge (checklist decision 47). */
  readonly challengeSeen: (clientId: ClientId, codeChallenge: string) => Fx<boolean>
}
export class CodeStore extends Context.Service<CodeStore, CodeStoreShape>()("core/ports/CodeStore") {}
