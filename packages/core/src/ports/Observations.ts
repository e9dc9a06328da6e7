// What the core tells an operator's metrics (docs/operations.md): token grants, tool calls, credits, rate-limit
// refusals. Synchronous and cheap (an increment); labels are closed sets — grant types, tool kinds, error tags,
// limiter names — never a secret, an id or an argument. Without an exporter (tests, the CLI) nothing is counted.
import { Context } from "effect"

/** What credits were charged for (a closed set: a metric label). */
export type CreditsChargedFor = "tool_call" | "approved_write" | "task"

export interface ObservationsShape {
  /** One answer of the token endpoint: `grantType` authorization_code, refresh_token or other; `outcome` issued or a refusal tag. */
  readonly tokenGrant: (grantType: string, outcome: string) => void
  /** One tool call: its kind (read or write, `unknown` for no such tool) and outcome (ok or a refusal tag). */
  readonly toolCall: (kind: string, outcome: string) => void
  /**
   * Credits taken from a workspace's balance, or given back (`refunded`), for what: a tool call answered at once, a
   * queued write run once approved, or a task's own cost taken when it starts running.
   */
  readonly credits: (direction: "charged" | "refunded", amount: number, chargedFor: CreditsChargedFor) => void
  /** A request refused by a rate limiter. */
  readonly rateLimited: (limiter: string) => void
  /**
   * A domain event committed (commands/DomainEvent.ts), by its tag: a write queued, approved, rejected, expired,
   * executed, failed or withdrawn; a task started, completed, failed or cancelled; a connection opened or ended …
   */
  readonly event: (tag: string) => void
}

const ignore = (): void => {}

export const Observations = Context.Reference<ObservationsShape>("core/Observations", {
  defaultValue: () => ({ tokenGrant: ignore, toolCall: ignore, credits: ignore, rateLimited: ignore, event: ignore })
})
