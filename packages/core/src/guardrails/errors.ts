// The refusal of a guardrail (spec §What the service does 6: "A refusal says which guardrail and why"; REST 422).
import { Schema } from "effect"
import { GuardrailName } from "./Guardrails.ts"

export class GuardrailRefused extends Schema.TaggedError<GuardrailRefused>()("GuardrailRefused", {
  guardrail: GuardrailName,
  /** One sentence for people: the limit and what the change would do. */
  reason: Schema.String
}) {}
