// The floor for MCP tools/call: the bare MCP SDK v2 server, stateless Streamable HTTP, one echo tool, no auth, no
// database (shared/guides/mcp-sdk.md §9: a fresh low-level Server per request, modern 2026-07-28 exchanges in JSON).
// Usage: node mcpFloor.mjs <port>
import { createServer } from "node:http"
import { createMcpHandler, Server } from "@modelcontextprotocol/server"

const port = Number(process.argv[2])
const echo = { name: "echo", description: "Echoes its text", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }

const factory = () => {
  const server = new Server({ name: "bench-floor", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", async () => ({ tools: [echo] }))
  server.setRequestHandler("tools/call", async (req) => ({ content: [{ type: "text", text: String(req.params.arguments?.text ?? "") }] }))
  return server
}
const handler = createMcpHandler(factory, { legacy: "reject", responseMode: "json" })

createServer(async (req, res) => {
  if (req.url !== "/mcp") {
    res.writeHead(404).end()
    return
  }
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v)
  const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
    method: req.method, headers, ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {})
  })
  const response = await handler.fetch(request)
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
}).listen(port, "127.0.0.1", () => console.log(`MCP SDK floor on ${port}`))
process.on("SIGTERM", () => process.exit(0))
