// The access token store. Tokens are found by the SHA-256 of their value, never kept in clear.
import { Context, Effect, Option } from "effect"
import type { AccessToken } from "../credentials/records.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { SecretHash } from "./Secrets.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>

export interface AccessTokenStoreShape {
  readonly insert: (token: AccessToken) => Fx<void>
  readonly findByHash: (hash: SecretHash) => Fx<Option.Option<AccessToken>>
  /** Ends one access token (RFC 7009); answers whether it existed and was live. */
  readonly revoke: (hash: SecretHash, at: number) => Fx<boolean>
}
export class AccessTokenStore extends Context.Service<AccessTokenStore, AccessTokenStoreShape>()("core/ports/AccessTokenStore") {}
