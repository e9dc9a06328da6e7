// The API key store. Keys are found by the SHA-256 of their value, never kept in clear; every save is compare-and-set
// on `version`: a store saves `next` only if the stored version is still `next.version - 1`, else Conflict.
import { Context, Effect, Option } from "effect"
import type { ApiKey, ApiKeyId } from "../credentials/records.ts"
import type { Conflict, StoreUnavailable } from "./errors.ts"
import type { SecretHash } from "./Secrets.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

type Fx<A> = Effect.Effect<A, StoreUnavailable>
type Cas = Effect.Effect<void, Conflict | StoreUnavailable>

export interface ApiKeyStoreShape {
  readonly insert: (key: ApiKey) => Fx<void>
  readonly findByHash: (hash: SecretHash) => Fx<Option.Option<ApiKey>>
  readonly find: (id: ApiKeyId) => Fx<Option.Option<ApiKey>>
  readonly save: (next: ApiKey) => Cas
  readonly listByWorkspace: (workspaceId: WorkspaceId) => Fx<ReadonlyArray<ApiKey>>
}
export class ApiKeyStore extends Context.Service<ApiKeyStore, ApiKeyStoreShape>()("core/ports/ApiKeyStore") {}
