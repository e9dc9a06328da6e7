// @adgate/adapters-mcp: the MCP server over Streamable HTTP at /api/mcp. It arrives with the MCP issue, on the same
// tool pipeline as the REST API; until then the package holds its place in the workspace and exports nothing.
export {}
