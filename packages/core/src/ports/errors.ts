// Errors every storage port shares: a lost compare-and-set race, and a store that cannot answer.
import { Schema } from "effect"

/** A compare-and-set save lost the race: the stored version moved on. The service reloads and decides again. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  entity: Schema.String
}) {}

/**
 * The store (or another dependency the answer needs) could not be read or written.
 * Adapters answer 503 and change nothing: the service fails closed.
 */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  operation: Schema.String,
  message: Schema.String
}) {}
