// Bun: adgate's fetch handler on Bun.serve.
import { flow } from "./flow.mjs"
import { makeAdgate } from "./host.mjs"

let adgate
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => adgate.fetch(request) })
const origin = `http://127.0.0.1:${server.port}`
adgate = makeAdgate(origin)
try {
  await flow(origin)
  console.log(`Bun ${Bun.version}: discovery, OAuth flow and MCP tools/call passed`)
} finally {
  await server.stop(true)
  await adgate.stop()
}
