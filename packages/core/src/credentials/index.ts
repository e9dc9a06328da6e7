// The credentials module's public face: access tokens and API keys, resolved to a Principal.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./records.ts"
export * from "./errors.ts"
export * from "./constantTimeEqual.ts"
export * from "./issueTokenPair.ts"
export * from "./resolveBearer.ts"
export * from "./accessTokenWorks.ts"
export * from "./authenticateBearer.ts"
export * from "./createApiKey.ts"
export * from "./revokeApiKey.ts"
export * from "./requestNotes.ts"
export * from "./apiKeyRules.ts"
