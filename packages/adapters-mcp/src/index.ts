// @adgate/adapters-mcp: the MCP server over Streamable HTTP at /api/mcp (spec §MCP server; docs/mcp.md), on the same
// bearer check and tool pipeline as the REST API.
export { McpRoutes, makeMcpRoutes, type McpRoutesOptions } from "./McpRoutes.ts"
export { makeMcpHandler, mcpPath, protectedResourceMetadataUrl, type McpHandler, type McpHandlerOptions } from "./mcpHandler.ts"
export { instructions, makeMcpServer, mcpToolOf, serverInfo, toolsPageSize } from "./mcpServer.ts"
export type { McpPorts } from "./McpPorts.ts"
