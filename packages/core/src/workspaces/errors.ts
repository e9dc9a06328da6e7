// Errors of workspace administration (CLI, first start, later the management pages). Reasons only; each adapter
// says them in its own words.
import { Schema } from "effect"

/** A workspace cannot be added as given. */
export class WorkspaceInvalid extends Schema.TaggedError<WorkspaceInvalid>()("WorkspaceInvalid", {
  reason: Schema.Literals(["name_missing"])
}) {}

/** No workspace has this id or name. */
export class WorkspaceNotFound extends Schema.TaggedError<WorkspaceNotFound>()("WorkspaceNotFound", {
  ref: Schema.String
}) {}

/** Several workspaces have this name: the caller must use the id. */
export class WorkspaceNameAmbiguous extends Schema.TaggedError<WorkspaceNameAmbiguous>()("WorkspaceNameAmbiguous", {
  name: Schema.String,
  count: Schema.Number
}) {}
