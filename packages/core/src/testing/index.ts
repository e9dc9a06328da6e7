// @adgate/core/testing: the in-memory implementation of every port, the compositions tests build on and Web Crypto
// secrets; for tests and embedding. Production code never imports it (packages/core/test/boundaries.test.ts).
export * from "./StoresMemory.ts"
export * from "./DirectoryMemory.ts"
export * from "./SecretsWebCrypto.ts"
export { makeVersionedTable, type VersionedTable } from "./versioned.ts"
export * from "./OperationsMemory.ts"
export * from "./GuardrailStoreMemory.ts"
export * from "./ToolSearchMemory.ts"
export * from "./PlatformsMemory.ts"
export * from "./GrantReaderMemory.ts"
export * from "./EventOutboxMemory.ts"
export * from "./queueWithoutCall.ts"
