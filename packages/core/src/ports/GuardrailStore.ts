// Storage of each workspace's guardrails: one record per workspace, set from the CLI now and
// the management page later. Settings, not a lifecycle: the last save wins.
import { Context, Effect, Option } from "effect"
import type { Guardrails } from "../guardrails/Guardrails.ts"
import type { StoreUnavailable } from "./errors.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

export interface GuardrailStoreShape {
  readonly find: (workspaceId: WorkspaceId) => Effect.Effect<Option.Option<Guardrails>, StoreUnavailable>
  /** Inserts or replaces the workspace's record. */
  readonly save: (guardrails: Guardrails) => Effect.Effect<void, StoreUnavailable>
}
export class GuardrailStore extends Context.Service<GuardrailStore, GuardrailStoreShape>()("core/ports/GuardrailStore") {}
