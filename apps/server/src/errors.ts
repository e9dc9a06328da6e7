// Errors of the server process and its CLI: wrong configuration, a data folder held by another process, bad usage.
import { Schema } from "effect"

export class ConfigurationInvalid extends Schema.TaggedError<ConfigurationInvalid>()("ConfigurationInvalid", {
  message: Schema.String
}) {}

/** PGlite keeps one process per data folder: the server (or another CLI run) holds it. */
export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  dataDir: Schema.String,
  pid: Schema.Number
}) {}

export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/** An administration command that cannot be done as asked (unknown workspace, duplicate e-mail …). */
export class CommandRefused extends Schema.TaggedError<CommandRefused>()("CommandRefused", {
  message: Schema.String
}) {}
