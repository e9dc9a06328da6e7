// The codes module's public face: authorization codes and their exchange.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./AuthorizationCode.ts"
export * from "./errors.ts"
export * from "./transitionCode.ts"
export * from "./exchangeCode.ts"
