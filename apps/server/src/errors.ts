// Errors of the server process and its CLI: wrong configuration, bad usage.
import { Schema } from "effect"

export class ConfigurationInvalid extends Schema.TaggedError<ConfigurationInvalid>()("ConfigurationInvalid", {
  message: Schema.String
}) {}

/** The command line was not understood: an unknown command or option, a missing or invalid argument. */
export class UsageInvalid extends Schema.TaggedError<UsageInvalid>()("UsageInvalid", {
  message: Schema.String
}) {}

/** The running server's admin socket could not be used: its secret unreadable, refused, or an answer not understood. */
export class AdminSocketRefused extends Schema.TaggedError<AdminSocketRefused>()("AdminSocketRefused", {
  message: Schema.String
}) {}
