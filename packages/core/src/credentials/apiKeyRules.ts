// Who may create and revoke a workspace's API keys, and what the New key form offers (docs/decisions.md, Pages:
// "API keys"). An admin creates keys with any scope the plan allows and revokes any key; an editor creates keys with
// the scopes an editor can grant (never tools:*, never "apply ordinary changes at once") and revokes only the keys
// they created (`mayEnd`, the Connected apps rule); a viewer neither. createApiKey and revokeApiKey enforce these; the
// page renders them.
import { Effect } from "effect"
import { peopleOf } from "../connectedApps/listConnectedApps.ts"
import { canConnect, type NotGrantable, whyNotGrantable } from "../scopes/grant.ts"
import { allScopes, type Scope } from "../scopes/Scope.ts"
import { ApiKeyStore } from "../ports/ApiKeyStore.ts"
import type { Plan, Role, WorkspaceId } from "../workspaces/Workspace.ts"

/** Whether a person with `role` may create API keys at all. */
export const canCreateApiKeys = (role: Role): boolean => canConnect(role)

/** Whether "apply ordinary changes at once" is this person's to choose (as on the consent page: an admin's). */
export const canChooseApplyAtOnce = (role: Role): boolean => role === "admin"

/** The New key form of one person: every scope, each with why it cannot be chosen (null: it can). */
export interface ApiKeyFormOptions {
  readonly canCreate: boolean
  readonly scopes: ReadonlyArray<{ readonly scope: Scope; readonly reason: NotGrantable | null }>
  readonly canApplyAtOnce: boolean
}

export const apiKeyFormOptions = (role: Role, plan: Plan): ApiKeyFormOptions => ({
  canCreate: canCreateApiKeys(role),
  scopes: allScopes.map((scope) => ({ scope, reason: whyNotGrantable(scope, role, plan) })),
  canApplyAtOnce: canChooseApplyAtOnce(role)
})

/**
 * The workspace's keys, newest first (revoked ones too: the list shows their status), each with its creator (null
 * when the person no longer exists).
 */
export const listApiKeys = Effect.fn("credentials.listApiKeys")(function* (workspaceId: WorkspaceId) {
  const keys = yield* (yield* ApiKeyStore).listByWorkspace(workspaceId)
  const creators = yield* peopleOf(workspaceId, keys.map((k) => k.createdBy))
  return [...keys]
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .map((key) => ({ key, creator: creators.get(key.createdBy) ?? null }))
})
