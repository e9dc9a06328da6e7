// The ports a request of the REST API or of the MCP server runs on: the bearer check, the tool pipeline, tasks and
// write requests. One list for both surfaces, since both call the same core functions; each surface's routes check at
// compile time that it covers what they require (withPorts leaves a missing one as a requirement of the handler).
import {
  AccessTokenStore, ApiKeyStore, ArgumentValidator, ConnectionStore, CreditsLedger, Directory, EventOutbox, GuardrailStore, IdempotencyStore,
  Issuer, Platforms, RateLimiter, Secrets, TaskStore, ToolSearch, ToolUsageLog, Transactor, WriteRequestStore
} from "@adgate/core"

export const toolSurfacePortServices = [
  AccessTokenStore, ApiKeyStore, ArgumentValidator, ConnectionStore, CreditsLedger, Directory, EventOutbox, GuardrailStore, IdempotencyStore, Issuer,
  Platforms, RateLimiter, Secrets, TaskStore, ToolSearch, ToolUsageLog, Transactor, WriteRequestStore
] as const
