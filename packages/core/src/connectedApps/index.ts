// The connectedApps module's public face: the management page's Connected apps rows (connections and API keys as one
// kind of row), their usage, their audit trail and ending one. Other packages import it through @adgate/core; other
// core folders import only the files it exports.
export * from "./ConnectedApp.ts"
export * from "./errors.ts"
export * from "./listConnectedApps.ts"
export * from "./findConnectedApp.ts"
export * from "./endConnectedApp.ts"
