// The JSON-RPC error body of the MCP endpoint's own HTTP refusals (MCP §Transports, Streamable HTTP: JSON answers),
// also for the refusals made before any route runs (a body over the limit, in the HTTP application's middleware).
import { restErrors } from "./errors.ts"
import { protectedResources } from "./protectedResources.ts"

/** `{jsonrpc: "2.0", id, error: {code, message}}`; `id` null when the request's own id is not known. */
export const jsonRpcErrorBody = (code: number, message: string, id: unknown = null) =>
  ({ jsonrpc: "2.0", id: id ?? null, error: { code, message } })

/** Whether a path is the MCP endpoint's (whose refusals are JSON-RPC errors, never text or a page). */
export const isMcpPath = (path: string): boolean => path === protectedResources.mcp.path

/** The 413 body of a request to the MCP endpoint larger than the body limit: -32600, the REST table's sentence. */
export const mcpBodyTooLargeBody = () => jsonRpcErrorBody(-32600, `Invalid Request: ${restErrors.BodyTooLarge.message()}`)
