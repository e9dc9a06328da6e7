// The guardrails module's public face: guardrails and their evaluation.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./Guardrails.ts"
export * from "./errors.ts"
export * from "./namePattern.ts"
export * from "./evaluateGuardrails.ts"
export * from "./setGuardrails.ts"
export * from "./workspaceGuardrails.ts"
export * from "./exactPercent.ts"
