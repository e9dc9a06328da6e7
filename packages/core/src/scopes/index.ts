// The scopes module's public face: scopes and grants.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./Scope.ts"
export * from "./grant.ts"
