// Who may grant which scope (spec §Resources: Scopes): admin or editor for tasks and accounts; the tools:*
// scopes only a workspace admin on a paid plan. A member who is neither admin nor editor cannot connect.
import type { Plan, Role, UserId } from "../workspaces/Workspace.ts"
import { allScopes, type Scope } from "./Scope.ts"

export const isToolScope = (scope: Scope): boolean => scope.startsWith("tools:")

/** Whether the scopes let an app make changes through tools: then the write-approval setting matters. */
export const makesChanges = (scopes: ReadonlyArray<Scope>): boolean => scopes.includes("tools:write") || scopes.includes("tools:raw")

/** Why a person cannot grant a scope; shown struck through on the consent page. */
export type NotGrantable = "role_cannot_connect" | "needs_admin" | "needs_paid_plan"

export const whyNotGrantable = (scope: Scope, role: Role, plan: Plan): NotGrantable | null => {
  if (role !== "admin" && role !== "editor") return "role_cannot_connect"
  if (!isToolScope(scope)) return null
  if (role !== "admin") return "needs_admin"
  if (plan !== "paid") return "needs_paid_plan"
  return null
}

export const canGrant = (scope: Scope, role: Role, plan: Plan): boolean => whyNotGrantable(scope, role, plan) === null

/** Whether a person may connect an app at all (spec: neither admin nor editor cannot connect). */
export const canConnect = (role: Role): boolean => role === "admin" || role === "editor"

/**
 * Who may end a Connected apps row, a connection (Disconnect) or an API key (Revoke), on every surface: a workspace
 * admin any row; an editor the rows they approved or created (`ownerId`: a connection's approver, a key's creator);
 * a viewer, or someone no longer a member (`role` null), none (docs/decisions.md, Connections and keys).
 */
export const mayEnd = (role: Role | null, userId: UserId | null, row: { readonly ownerId: UserId }): boolean =>
  role === "admin" || (role === "editor" && row.ownerId === userId)

/**
 * The role a connection's approver must still hold at each refresh (spec §Authentication 8):
 * admin when any platform-tool scope was approved, admin or editor otherwise. The plan is not re-checked here.
 */
export const roleStillSuffices = (scopes: ReadonlyArray<Scope>, role: Role): boolean =>
  scopes.some(isToolScope) ? role === "admin" : canConnect(role)

/**
 * The scopes a key or an access token still carries under its person's current role (checked at each request by
 * authenticateBearer): none for someone no longer a member or neither admin nor editor; the platform-tool scopes
 * only for an admin. The plan is not checked here: each tool call checks it (toolAccess).
 */
export const scopesRoleHolds = (scopes: ReadonlyArray<Scope>, role: Role | null): ReadonlyArray<Scope> =>
  role === null || !canConnect(role) ? [] : role === "admin" ? scopes : scopes.filter((scope) => !isToolScope(scope))

/** Parses a space-separated scope string: known scopes in canonical order, unknown words dropped (spec). */
export const parseScopes = (value: string): ReadonlyArray<Scope> => {
  const words = new Set(value.split(" ").filter((w) => w.length > 0))
  return allScopes.filter((s) => words.has(s))
}

export const formatScopes = (scopes: ReadonlyArray<Scope>): string => allScopes.filter((s) => scopes.includes(s)).join(" ")
