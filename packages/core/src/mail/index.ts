// The mail module's public face: which events are mailed, the queued mail's lifecycle (claim, send, mark sent), its
// ids and the sender's pass.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./errors.ts"
export * from "./transitionMail.ts"
export * from "./queuedMailId.ts"
export * from "./sendQueuedMail.ts"
export * from "./mailSubscription.ts"
