// The stable error code of every refusal a tool call can answer (spec §REST status codes; architecture §Errors):
// one table REST (`{ok:false, error}`) and MCP (a tool result with `isError` and `{error, message}`) both answer with,
// so the same call refused on either surface names the same code. HTTP statuses stay in the adapters.
import type { ToolCallRefusal } from "./callTool.ts"

export const toolRefusalCodes = {
  ToolNotFound: "tool_not_found",
  ToolScopeMissing: "insufficient_scope",
  ToolPlanNotPaid: "plan_not_paid",
  ToolRoleNotAllowed: "role_not_allowed",
  ToolPlatformNotAllowed: "platform_not_allowed",
  NoConnectedAccount: "no_connected_account",
  AccountNotConnected: "account_not_connected",
  ToolArgumentsInvalid: "invalid_arguments",
  PlatformRefused: "platform_error",
  GuardrailRefused: "guardrail_refused",
  InsufficientCredits: "insufficient_credits",
  IdempotencyKeyInFlight: "idempotency_key_in_flight",
  IdempotencyKeyMismatch: "idempotency_key_mismatch",
  PlatformUnavailable: "platform_unavailable",
  StoreUnavailable: "temporarily_unavailable",
  DirectoryUnavailable: "temporarily_unavailable"
} as const satisfies Record<ToolCallRefusal["_tag"], string>

/** One sentence for the caller (a person or a model): what was refused and what would change the answer. */
export const toolRefusalMessage = (refusal: ToolCallRefusal): string => {
  switch (refusal._tag) {
    case "ToolNotFound": return `There is no tool named ${refusal.name}.`
    case "ToolScopeMissing": return `This needs the ${refusal.scope} permission, which this connection was not given.`
    case "ToolPlanNotPaid": return "Platform tools need a paid plan; this workspace is on the free plan."
    case "ToolRoleNotAllowed": return "Platform tools act for a workspace admin; the person behind this connection is no longer one."
    case "ToolPlatformNotAllowed": return `This connection was not allowed to use ${refusal.platform} (tool ${refusal.tool}).`
    case "NoConnectedAccount": return `The workspace has no connected ${refusal.platform} account for ${refusal.tool}.`
    case "AccountNotConnected": return `Account ${refusal.accountId} is not a connected ${refusal.platform} account of this workspace.`
    case "ToolArgumentsInvalid":
      return `The arguments do not match the schema of ${refusal.tool}: ` +
        refusal.problems.map((p) => `${p.path === "" ? "(arguments)" : p.path} ${p.message}`).join("; ") + "."
    case "PlatformRefused": return `The platform answered ${refusal.providerStatus} to ${refusal.tool}; nothing was changed.`
    case "GuardrailRefused": return `Refused by the workspace guardrail ${refusal.guardrail}: ${refusal.reason}`
    case "InsufficientCredits": return `Not enough credits: ${refusal.needed} needed, ${refusal.left} left.`
    case "IdempotencyKeyInFlight": return "A call with this idempotency key is still running; retry in a moment."
    case "IdempotencyKeyMismatch": return "This idempotency key was used for another call."
    case "PlatformUnavailable": return "The platform could not be reached; nothing was changed. Retry in a moment."
    case "StoreUnavailable":
    case "DirectoryUnavailable": return "The service cannot answer right now; retry in a moment."
  }
}
