// The connections module's public face: connections: opening, refresh rotation, ending and housekeeping.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./Connection.ts"
export * from "./errors.ts"
export * from "./transitionConnection.ts"
export * from "./openConnection.ts"
export * from "./refreshConnection.ts"
export * from "./endConnection.ts"
export * from "./endExpiredConnections.ts"
export * from "./disconnectConnection.ts"
