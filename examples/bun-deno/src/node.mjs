// Node 20 and later: adgate's Node request listener on http.createServer.
import { createServer } from "node:http"
import { flow } from "./flow.mjs"
import { makeAdgate } from "./host.mjs"

let adgate
const server = createServer((request, response) => adgate.nodeListener(request, response))
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${server.address().port}`
adgate = makeAdgate(origin)
try {
  await flow(origin)
  console.log(`Node ${process.version}: discovery, OAuth flow and MCP tools/call passed`)
} finally {
  server.close()
  await adgate.stop()
}
