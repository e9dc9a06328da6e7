// Tagged refusals of the tool pipeline (spec §REST status codes; architecture §One tool pipeline, §Errors). Each
// carries what the caller needs to act on it; the adapters map them to statuses in one table each.
import { Schema } from "effect"
import { Scope } from "../scopes/Scope.ts"
import { UserId, WorkspaceId } from "../workspaces/Workspace.ts"

/** No tool of that name in the catalog (REST 404). */
export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()("ToolNotFound", {
  name: Schema.String
}) {}

/** The credential lacks the scope this call needs (REST 403 insufficient_scope, with the scope to ask for). */
export class ToolScopeMissing extends Schema.TaggedError<ToolScopeMissing>()("ToolScopeMissing", {
  tool: Schema.NullOr(Schema.String),
  scope: Scope
}) {}

/** Platform tools need a paid plan (spec §Resources: Scopes); the workspace is on the free plan (REST 403). */
export class ToolPlanNotPaid extends Schema.TaggedError<ToolPlanNotPaid>()("ToolPlanNotPaid", {
  workspaceId: WorkspaceId
}) {}

/**
 * Platform tools act for a workspace admin (spec §Resources: Scopes, §Authentication 8): the connection's approver or
 * the key's creator is no longer an admin of the workspace (REST 403).
 */
export class ToolRoleNotAllowed extends Schema.TaggedError<ToolRoleNotAllowed>()("ToolRoleNotAllowed", {
  userId: UserId
}) {}

/** The connection's platform choice does not include the tool's platform (REST 403). */
export class ToolPlatformNotAllowed extends Schema.TaggedError<ToolPlatformNotAllowed>()("ToolPlatformNotAllowed", {
  tool: Schema.String,
  platform: Schema.String
}) {}

/** The workspace has no connected account of the tool's platform (REST 409). */
export class NoConnectedAccount extends Schema.TaggedError<NoConnectedAccount>()("NoConnectedAccount", {
  tool: Schema.String,
  platform: Schema.String
}) {}

/** The `accountId` argument names no connected account of the tool's platform in this workspace (REST 409). */
export class AccountNotConnected extends Schema.TaggedError<AccountNotConnected>()("AccountNotConnected", {
  tool: Schema.String,
  platform: Schema.String,
  accountId: Schema.String
}) {}

/** One problem of the arguments: a JSON Pointer into the arguments ("" for the whole object) and what is wrong. */
export const ArgumentProblem = Schema.Struct({ path: Schema.String, message: Schema.String })
export type ArgumentProblem = typeof ArgumentProblem.Type

/** The arguments do not match the tool's JSON Schema (REST 422): every problem, not only the first. */
export class ToolArgumentsInvalid extends Schema.TaggedError<ToolArgumentsInvalid>()("ToolArgumentsInvalid", {
  tool: Schema.String,
  problems: Schema.Array(ArgumentProblem)
}) {}

/** The platform ran the call and answered with an error (REST 422, with the platform's status and answer). */
export class PlatformRefused extends Schema.TaggedError<PlatformRefused>()("PlatformRefused", {
  tool: Schema.String,
  providerStatus: Schema.Int,
  body: Schema.Json
}) {}

/** Refusals of access: what GET /tools hides and POST /tools/{name} answers 403 (toolAccess). */
export type ToolAccessRefusal = ToolScopeMissing | ToolPlanNotPaid | ToolRoleNotAllowed | ToolPlatformNotAllowed
