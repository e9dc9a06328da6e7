// Errors of the server process and its CLI: wrong configuration, bad usage.
import { Schema } from "effect"

export class ConfigurationInvalid extends Schema.TaggedError<ConfigurationInvalid>()("ConfigurationInvalid", {
  message: Schema.String
}) {}

export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/** An administration command that cannot be done as asked (unknown workspace, duplicate e-mail …). */
export class CommandRefused extends Schema.TaggedError<CommandRefused>()("CommandRefused", {
  message: Schema.String
}) {}
