// Bench-only probe (round 11): a bare node:http token echo, but created and listening inside an Effect
// NodeRuntime fiber as tokenFloor.mjs does (PROBE_EFFECT=0: plain top-level), driven by an external undici loop.
import { createServer } from "node:http"
import { Effect, Layer } from "effect"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
const tokenHeaders = { "content-type": "application/json", "cache-control": "no-store", "access-control-allow-origin": "*" }
const handler = (request, response) => {
  const chunks = []
  request.on("data", (c) => chunks.push(c))
  request.on("end", () => {
    const params = [...new URLSearchParams(Buffer.concat(chunks).toString("utf8"))]
    const presented = params.find(([k]) => k === "refresh_token")?.[1]
    response.writeHead(200, tokenHeaders).end(JSON.stringify({ access_token: "x", token_type: "Bearer", expires_in: 3600, refresh_token: presented, scope: "" }))
  })
}
setTimeout(() => process.exit(0), 15000)
if (process.env.PROBE_EFFECT === "0") createServer(handler).listen(18555, "127.0.0.1")
else NodeRuntime.runMain(Layer.launch(Layer.effectDiscard(Effect.gen(function* () {
  const server = createServer(handler)
  yield* Effect.acquireRelease(
    Effect.callback((resume) => { server.listen(18555, "127.0.0.1", () => resume(Effect.void)) }),
    () => Effect.callback((resume) => { server.close(() => resume(Effect.void)) }))
}))))
