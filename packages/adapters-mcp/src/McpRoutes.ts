// /api/mcp in the service's HTTP router (spec §MCP server): every method goes to the MCP handler, behind the global
// security middleware (request id, log line, 1 MB body limit: the body is read here, so the limit applies).
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Issuer, RequestNotes } from "@adgate/core"
import type { McpPorts } from "./McpPorts.ts"
import { authorizationOf, hasMatrixParameters } from "@adgate/answers"
import { makeMcpHandler, mcpPath, notThisEndpoint } from "./mcpHandler.ts"

export interface McpRoutesOptions {
  /** Browser origins besides the service's own that may call /api/mcp. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** How long tasks/result waits for a task that has not ended (mcpHandler.ts; default 60 s). */
  readonly taskResultWaitMs?: number
  /** Whether a plain 2025-era tools/call is answered without the SDK's per-request server (mcpHandler.ts; default true). */
  readonly answerToolCallsDirectly?: boolean
}

export const makeMcpRoutes = (options: McpRoutesOptions = {}) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const { origin } = yield* Issuer
      const context = yield* Effect.context<McpPorts>()
      const handler = makeMcpHandler({ origin, run: Effect.runPromiseWith(context), ...options })
      yield* router.add("*", mcpPath, Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        // The router ignores a `;…` suffix; the endpoint is the path exactly as sent, so `/api/mcp;x` is not it.
        if (hasMatrixParameters(request.url)) return HttpServerResponse.fromWeb(notThisEndpoint())
        const body = request.method === "POST" ? yield* request.text : ""
        const headers = new Headers()
        for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value)
        // Every Authorization field the client sent, joined (Node keeps only the first): two are refused in the handler.
        const authorization = authorizationOf(request.headers, request.source)
        if (authorization !== undefined) headers.set("authorization", authorization)
        const { search } = new URL(request.url, origin)
        const notes = yield* RequestNotes
        // One web Request per call, carrying the body the handler forwards to the SDK (it is not built a second time),
        // the query (a credential there is refused) and a signal that aborts when the client leaves (tasks/result waits).
        const response = yield* Effect.promise((signal) => handler(
          new Request(`${origin}${mcpPath}${search}`, { method: request.method, headers, signal, ...(request.method === "POST" ? { body } : {}) }),
          body,
          notes
        ))
        return HttpServerResponse.fromWeb(response)
      }))
    })
  )

export const McpRoutes = makeMcpRoutes()
