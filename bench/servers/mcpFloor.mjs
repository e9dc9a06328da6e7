// The floor for MCP tools/call: the bare MCP SDK v2 server, stateless Streamable HTTP, one echo tool, no auth, no
// database (shared/guides/mcp-sdk.md §9: a fresh low-level Server per request, modern 2026-07-28 exchanges in JSON).
// `/mcp` serves 2026-07-28 only (createMcpHandler, legacy: "reject"); `/mcp-2025` serves 2025-11-25 the way adgate's
// own legacy leg does (packages/adapters-mcp/src/mcpHandler.ts): a fresh Server per request over a stateless
// WebStandardStreamableHTTPServerTransport with JSON answers, no initialize. Two paths rather than routing one path
// with isLegacyRequest, so that neither floor pays a classification the other does not.
// Usage: node mcpFloor.mjs <port>
import { createServer } from "node:http"
import { createMcpHandler, Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"

const port = Number(process.argv[2])
const echo = { name: "echo", description: "Echoes its text", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }

const factory = () => {
  const server = new Server({ name: "bench-floor", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", async () => ({ tools: [echo] }))
  server.setRequestHandler("tools/call", async (req) => ({ content: [{ type: "text", text: String(req.params.arguments?.text ?? "") }] }))
  return server
}
const handler = createMcpHandler(factory, { legacy: "reject", responseMode: "json" })

/** 2025-11-25, stateless: one Server and one transport per request, answered in JSON, closed after the answer. */
const legacyHandler = async (request, parsedBody) => {
  const server = factory()
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request, { parsedBody })
  } finally {
    void server.close()
  }
}

createServer(async (req, res) => {
  if (req.url !== "/mcp" && req.url !== "/mcp-2025") {
    res.writeHead(404).end()
    return
  }
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const raw = Buffer.concat(chunks)
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v)
  const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
    method: req.method, headers, ...(req.method === "POST" ? { body: raw } : {})
  })
  // The 2025 leg is given the parsed body, as adgate gives it (it has parsed it to check the call's scope).
  const response = req.url === "/mcp" ? await handler.fetch(request) : await legacyHandler(request, JSON.parse(raw.toString("utf8")))
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
}).listen(port, "127.0.0.1", () => console.log(`MCP SDK floor on ${port}`))
process.on("SIGTERM", () => process.exit(0))
