// The platform families a workspace has connected accounts of: what the consent page offers to tick, and what a
// ticked subset is checked against (spec §GET /oauth/authorize "platforms (all connected, including later ones, or
// only ticked ones)").
import { Effect } from "effect"
import { Platforms } from "../ports/Platforms.ts"
import type { WorkspaceId } from "../workspaces/Workspace.ts"

/** A family the person may tick: its id (`gads`, the `<family>` of `<family>__<tool>`) and its name for people. */
export interface PlatformOption {
  readonly id: string
  readonly name: string
}

/** The workspace's connected families, in the service's family order. Fails PlatformUnavailable. */
export const connectedPlatforms = Effect.fn("authorize.connectedPlatforms")(function* (workspaceId: WorkspaceId) {
  const platforms = yield* Platforms
  const connected = new Set((yield* platforms.accounts(workspaceId)).map((account) => account.platform))
  return platforms.families
    .filter((family) => connected.has(family.id))
    .map((family): PlatformOption => ({ id: family.id, name: family.name }))
})
