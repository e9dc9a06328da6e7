// /api/mcp in the service's HTTP router (spec §MCP server): every method goes to the MCP handler, behind the global
// security middleware (request id, log line, 1 MB body limit: the body is read here, so the limit applies).
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Issuer } from "@adgate/core"
import type { McpPorts } from "./McpPorts.ts"
import { makeMcpHandler, mcpPath } from "./mcpHandler.ts"

export interface McpRoutesOptions {
  /** Browser origins besides the service's own that may call /api/mcp. */
  readonly allowedOrigins?: ReadonlyArray<string>
}

export const makeMcpRoutes = (options: McpRoutesOptions = {}) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const { origin } = yield* Issuer
      const context = yield* Effect.context<McpPorts>()
      const handler = makeMcpHandler({ origin, run: Effect.runPromiseWith(context), ...options })
      yield* router.add("*", mcpPath, Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = request.method === "POST" ? yield* request.text : ""
        const headers = new Headers()
        for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value)
        // One web Request per call, carrying the body the handler forwards to the SDK (it is not built a second time).
        const web = new Request(`${origin}${mcpPath}`, { method: request.method, headers, ...(request.method === "POST" ? { body } : {}) })
        const response = yield* Effect.promise(() => handler(web, body))
        return HttpServerResponse.fromWeb(response)
      }))
    })
  )

export const McpRoutes = makeMcpRoutes()
