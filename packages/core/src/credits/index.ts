// The credits module's public face: the credits ledger and its rules.
// Other packages import it through @adgate/core; other core folders import only the files it exports.
export * from "./creditRules.ts"
export * from "./CreditEntry.ts"
export * from "./errors.ts"
export * from "./reserveCredits.ts"
export * from "./setCreditBalance.ts"
export * from "./creditHistory.ts"
