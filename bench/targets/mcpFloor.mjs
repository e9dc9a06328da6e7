// Target: the bare MCP SDK v2 server (servers/mcpFloor.mjs), the floor for tools/call (scenario e).
import { startChild } from "../lib/processes.mjs"
import { call, sleep } from "../lib/http.mjs"

export const mcpFloorTarget = ({ port }) => {
  const base = `http://127.0.0.1:${port}`
  let server
  return {
    name: "mcp-sdk-floor",
    kind: "reference",
    base,
    database: null,
    mcpPath: "/mcp",
    mcpLegacyPath: "/mcp-2025",
    get pid() { return server.pid },
    dbPids: async () => [],
    async start() {
      server = startChild(this.name, ["bench/servers/mcpFloor.mjs", String(port)], { NODE_ENV: "production" })
      for (let i = 0; i < 150; i++) {
        if (!server.alive()) throw new Error("MCP floor exited")
        try {
          const r = await call(`${base}/health`)
          if (r.status === 404) return
        } catch {}
        await sleep(200)
      }
      throw new Error("MCP floor did not start")
    },
    async stop() {
      await server?.stop()
    }
  }
}
