// Deno: adgate's fetch handler on Deno.serve.
import { flow } from "./flow.mjs"
import { makeAdgate } from "./host.mjs"

let adgate
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => adgate.fetch(request))
const origin = `http://127.0.0.1:${server.addr.port}`
adgate = makeAdgate(origin)
try {
  await flow(origin)
  console.log(`Deno ${Deno.version.deno}: discovery, OAuth flow and MCP tools/call passed`)
} finally {
  await server.shutdown()
  await adgate.stop()
}
