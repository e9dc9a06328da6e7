// What the core tells an operator's metrics (docs/operations.md): token grants, tool calls, credits, rate-limit
// refusals. Synchronous and cheap (an increment); labels are closed sets — grant types, tool kinds, error tags,
// limiter names — never a secret, an id or an argument. Without an exporter (tests, the CLI) nothing is counted.
import { Context } from "effect"

export interface ObservationsShape {
  /** One answer of the token endpoint: `grantType` authorization_code, refresh_token or other; `outcome` issued or a refusal tag. */
  readonly tokenGrant: (grantType: string, outcome: string) => void
  /** One tool call: its kind (read or write, `unknown` for no such tool) and outcome (ok or a refusal tag). */
  readonly toolCall: (kind: string, outcome: string) => void
  /** Credits taken from a workspace's balance (reserved for a call), or given back (`refunded`). */
  readonly credits: (direction: "charged" | "refunded", amount: number) => void
  /** A request refused by a rate limiter. */
  readonly rateLimited: (limiter: string) => void
}

const ignore = (): void => {}

export const Observations = Context.Reference<ObservationsShape>("core/Observations", {
  defaultValue: () => ({ tokenGrant: ignore, toolCall: ignore, credits: ignore, rateLimited: ignore })
})
