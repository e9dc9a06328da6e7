// The core ports the MCP server runs on: those of the bearer check, the tool pipeline, tasks and write requests.
import type { Effect } from "effect"
import {
  AccessTokenStore, ApiKeyStore, ArgumentValidator, type authenticateBearer, type callTool, ConnectionStore, CreditsLedger, type describeTool, Directory,
  EventOutbox, GuardrailStore, IdempotencyStore, Issuer, type listTools, Platforms, RateLimiter, Secrets, type startTask, TaskStore, ToolSearch,
  ToolUsageLog, Transactor, WriteRequestStore
} from "@adgate/core"

export type McpPorts =
  | Effect.Services<ReturnType<typeof authenticateBearer>>
  | Effect.Services<ReturnType<typeof callTool>>
  | Effect.Services<ReturnType<typeof listTools>>
  | Effect.Services<ReturnType<typeof describeTool>>
  | Effect.Services<ReturnType<typeof startTask>>
  | TaskStore | WriteRequestStore | Issuer | ArgumentValidator

/** The services of McpPorts, as values (a missing one leaves a request's runner short of McpPorts: McpRoutes does not compile). */
export const mcpPortServices = [
  AccessTokenStore, ApiKeyStore, ArgumentValidator, ConnectionStore, CreditsLedger, Directory, EventOutbox, GuardrailStore, IdempotencyStore, Issuer,
  Platforms, RateLimiter, Secrets, TaskStore, ToolSearch, ToolUsageLog, Transactor, WriteRequestStore
] as const
