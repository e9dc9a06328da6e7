export * from "./StoresMemory.ts"
export * from "./DirectoryMemory.ts"
export * from "./SecretsWebCrypto.ts"
export { makeVersionedTable, type VersionedTable } from "./versioned.ts"
