// The command runner and the domain events: the public face of commands/.
export * from "./DomainEvent.ts"
export * from "./Transition.ts"
export * from "./conflictRetry.ts"
export * from "./runCommand.ts"
export * from "./drainOutbox.ts"
export * from "./outboxSubscriptions.ts"
export * from "./inBackground.ts"
