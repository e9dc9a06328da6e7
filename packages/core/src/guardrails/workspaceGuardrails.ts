// The guardrails on the workspace's Settings page (docs/decisions.md, Pages: "Workspace settings"): every member
// reads them (they say why a write waits or is refused, which a viewer may need to know too); only a workspace
// admin changes them, as on the consent page only an admin lets changes apply at once.
import { Effect, Option, Schema } from "effect"
import { Directory } from "../ports/Directory.ts"
import { type GuardrailChanges, setGuardrails } from "./setGuardrails.ts"
import type { Role, UserId, WorkspaceId } from "../workspaces/Workspace.ts"

/** Only a workspace admin changes the guardrails. */
export const canChangeGuardrails = (role: Role): boolean => role === "admin"

/** The person is not an admin of the workspace: nothing is saved. */
export class GuardrailsNotAllowed extends Schema.TaggedError<GuardrailsNotAllowed>()("GuardrailsNotAllowed", {}) {}

export interface ChangeGuardrailsInput {
  readonly workspaceId: WorkspaceId
  readonly actorId: UserId
  readonly changes: GuardrailChanges
}

/** setGuardrails for a person: their role in the workspace must allow it. */
export const changeGuardrails = Effect.fn("guardrails.changeGuardrails")(function* (input: ChangeGuardrailsInput) {
  const role = yield* (yield* Directory).role(input.workspaceId, input.actorId)
  if (Option.isNone(role) || !canChangeGuardrails(role.value)) return yield* new GuardrailsNotAllowed()
  return yield* setGuardrails(input.workspaceId, input.actorId, input.changes)
})
