// The clients module's public face: clients: dynamic registration, metadata documents, workspace apps and redirect-URI rules.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./Client.ts"
export * from "./removeWorkspaceApp.ts"
export * from "./errors.ts"
export * from "./RawUri.ts"
export * from "./redirectUri.ts"
export * from "./ClientMetadata.ts"
export * from "./registerClient.ts"
export * from "./registerWorkspaceApp.ts"
export * from "./metadataDocument.ts"
export * from "./resolveClient.ts"
export * from "./recognisedProducts.ts"
export * from "./appIdentity.ts"
