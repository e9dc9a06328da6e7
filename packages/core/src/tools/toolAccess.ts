// Who may call which tool (spec §Resources: Scopes, §REST API "Search lists only tools this credential may call",
// §REST status codes 403/409): ONE pure decision used by GET /tools (listing), GET /tools/{name} (callable and why
// not) and POST /tools/{name} (calling), so that what is listed is exactly what a call does not refuse.
import type { Principal } from "../credentials/records.ts"
import type { Scope } from "../scopes/Scope.ts"
import type { Plan, Role } from "../workspaces/Workspace.ts"
import {
  NoConnectedAccount, ToolPlanNotPaid, ToolPlatformNotAllowed, ToolRoleNotAllowed, ToolScopeMissing,
  type ToolAccessRefusal
} from "./errors.ts"
import type { Tool } from "./Tool.ts"
import type { ToolKind } from "./ToolUsage.ts"

/** What the decision reads besides the tool: the caller and the workspace as they are now. */
export interface AccessGrounds {
  readonly principal: Principal
  readonly plan: Plan
  /** The role of the connection's approver or the key's creator in the workspace now; null when not a member. */
  readonly role: Role | null
  /** The platform families with at least one connected account in the workspace. */
  readonly connectedFamilies: ReadonlySet<string>
}

/**
 * The scope one call needs (spec §POST /tools/{name}): tools:raw for any call of a raw tool (the platform's own API,
 * read or write), otherwise tools:read for a read and tools:write for a write.
 */
export const scopeForCall = (tool: Tool, kind: ToolKind): Scope =>
  tool.raw ? "tools:raw" : kind === "read" ? "tools:read" : "tools:write"

/** Whether the credential has any tools scope: GET /tools, GET /tools/{name} and GET /requests/{id} need one. */
export const hasToolScope = (principal: Principal): boolean => principal.scopes.some((s) => s.startsWith("tools:"))

/**
 * The refusal of a call whose credential lacks `scope`: role_not_allowed when the credential carries it but its
 * person's role no longer holds it (Principal.withheldScopes), otherwise insufficient_scope naming it.
 */
export const scopeRefusal = (principal: Principal, tool: string | null, scope: Scope): ToolScopeMissing | ToolRoleNotAllowed =>
  principal.withheldScopes?.includes(scope) === true
    ? new ToolRoleNotAllowed({ userId: principal.userId })
    : new ToolScopeMissing({ tool, scope })

/** The refusal of a listing or detail view without any tools scope (they need one; the refusal asks for tools:read). */
export const noToolScopeRefusal = (principal: Principal): ToolScopeMissing | ToolRoleNotAllowed =>
  principal.withheldScopes?.some((s) => s.startsWith("tools:")) === true
    ? new ToolRoleNotAllowed({ userId: principal.userId })
    : new ToolScopeMissing({ tool: null, scope: "tools:read" })

export const platformAllowed = (principal: Principal, family: string): boolean =>
  principal.platforms === "all" || principal.platforms.includes(family)

/**
 * The 403 part: scope for the call's kind, then the plan (tools need a paid plan), the role (platform tools act for a
 * workspace admin: spec §Authentication 8, checked at each call too, since an access token or a key outlives a
 * role change), then the connection's platform choice. Null when allowed.
 */
export const toolAccess = (grounds: AccessGrounds, tool: Tool, kind: ToolKind): ToolAccessRefusal | null => {
  const scope = scopeForCall(tool, kind)
  if (!grounds.principal.scopes.includes(scope)) return scopeRefusal(grounds.principal, tool.name, scope)
  if (grounds.plan !== "paid") return new ToolPlanNotPaid({ workspaceId: grounds.principal.workspaceId })
  if (grounds.role !== "admin") return new ToolRoleNotAllowed({ userId: grounds.principal.userId })
  if (!platformAllowed(grounds.principal, tool.family)) {
    return new ToolPlatformNotAllowed({ tool: tool.name, platform: tool.family })
  }
  return null
}

/**
 * Whether the tool can be called at all by this credential: access (403) and a connected account of its platform
 * (409). GET /tools lists exactly the tools for which this is null. A raw tool is judged by the scope it always
 * needs (tools:raw), so listing does not depend on the method a later call will use.
 */
export const toolAvailability = (grounds: AccessGrounds, tool: Tool): ToolAccessRefusal | NoConnectedAccount | null =>
  toolAccess(grounds, tool, tool.kind) ??
    (grounds.connectedFamilies.has(tool.family) ? null : new NoConnectedAccount({ tool: tool.name, platform: tool.family }))

/** The tools of `tools` callable on `grounds` (toolAvailability null), in their order. */
export const callableOf = (grounds: AccessGrounds, tools: ReadonlyArray<Tool>): ReadonlyArray<Tool> =>
  tools.filter((tool) => toolAvailability(grounds, tool) === null)
