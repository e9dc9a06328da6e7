// Checks a tool call's arguments against the tool's JSON Schema (draft 2020-12) before anything else happens
// (architecture §One tool pipeline, "arguments (422)"). Implemented with a well-kept validator in an adapter
// (packages/adapters-jsonschema); the core only reads the problems.
import { Context, Effect } from "effect"
import type { Schema } from "effect"
import type { ArgumentProblem } from "../tools/errors.ts"

export interface ArgumentValidatorShape {
  /**
   * Every problem of `args` against `schema` (empty when valid). A schema that cannot be compiled is a defect of the
   * catalog, not of the call: it dies.
   */
  readonly validate: (schema: Schema.JsonObject, args: Schema.JsonObject) => Effect.Effect<ReadonlyArray<ArgumentProblem>>
}
export class ArgumentValidator extends Context.Service<ArgumentValidator, ArgumentValidatorShape>()("core/ports/ArgumentValidator") {}
