// The limits module's public face: the rate-limit policy and the input limits of every JSON entry point.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./RateLimits.ts"
export * from "./InputLimits.ts"
