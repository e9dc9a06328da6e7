// The token module's public face: the token and revocation endpoints' rules and client authentication.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./errors.ts"
export type { RawParams, TokenParams } from "./TokenParams.ts"
export * from "./surfaceOfResource.ts"
export * from "./authenticateClient.ts"
export * from "./handleTokenRequest.ts"
export * from "./revokeToken.ts"
