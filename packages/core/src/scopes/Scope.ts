// The six scopes of the spec (§Resources: Scopes) and the surfaces a token is bound to (§Authentication 5).
import { Schema } from "effect"

export const Scope = Schema.Literals(["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write", "tools:raw"])
export type Scope = typeof Scope.Type

export const allScopes: ReadonlyArray<Scope> = Scope.literals

/** Spec §GET /oauth/authorize, scope: the set asked for when the request names none. */
export const defaultScopes: ReadonlyArray<Scope> = ["tasks:read", "tasks:write", "accounts:read", "tools:read", "tools:write"]

/** The surface a connection and its access tokens are bound to (RFC 8707): MCP server, REST API, or both. */
export const Surface = Schema.Literals(["mcp", "rest", "both"])
export type Surface = typeof Surface.Type

/** Whether writes through tools wait for a person (default) or apply ordinary changes at once (an admin's choice). */
export const WriteMode = Schema.Literals(["wait", "apply"])
export type WriteMode = typeof WriteMode.Type

/** Platform choice: every connected platform including later ones, or a ticked subset. */
export const PlatformChoice = Schema.Union([Schema.Literal("all"), Schema.Array(Schema.String)])
export type PlatformChoice = typeof PlatformChoice.Type
