// The idempotency module's public face: Idempotency-Key records and running a call once.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./IdempotencyRecord.ts"
export * from "./errors.ts"
export * from "./runIdempotent.ts"
