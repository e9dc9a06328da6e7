// /api/mcp in the service's HTTP router (spec §MCP server): every method goes to the MCP handler, behind the global
// security middleware (request id, log line, 1 MB body limit: the body is read here, so the limit applies).
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Issuer, RequestNotes } from "@adgate/core"
import type { McpPorts } from "./McpPorts.ts"
import { authorizationOf, hasMatrixParameters, toolSurfacePortServices, withPorts } from "@adgate/answers"
import { type JsonText, makeMcpEndpoint, mcpPath, notThisEndpoint } from "./mcpHandler.ts"

export interface McpRoutesOptions {
  /** Browser origins besides the service's own that may call /api/mcp. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** How long tasks/result waits for a task that has not ended (mcpHandler.ts; default 60 s). */
  readonly taskResultWaitMs?: number
  /** Whether a plain 2025-era tools/call is answered without the SDK's per-request server (mcpHandler.ts; default true). */
  readonly answerToolCallsDirectly?: boolean
}

/**
 * A web Response as the router's answer. JSON (every answer but an SSE stream) is read to its text and sent with a
 * Content-Length, in one write: streaming it through HttpServerResponse.fromWeb (a ReadableStream piped chunk by chunk)
 * cost more CPU than the MCP layer's own work (bench/README.md, Round 7c).
 */
const answerOf = (answer: Response | JsonText) => {
  if (!(answer instanceof Response)) return Effect.succeed(HttpServerResponse.text(answer.text, { status: answer.status, headers: answer.headers }))
  const contentType = answer.headers.get("content-type")
  if (answer.body === null || contentType === null || !contentType.startsWith("application/json") || answer.headers.has("set-cookie")) {
    return Effect.succeed(HttpServerResponse.fromWeb(answer))
  }
  return Effect.map(Effect.promise(() => answer.text()), (text) =>
    HttpServerResponse.text(text, { status: answer.status, headers: Object.fromEntries(answer.headers) }))
}

/** A header's value as web Headers would give it back (leading and trailing HTTP whitespace stripped), or null. */
const webValue = (value: string | undefined): string | null =>
  typeof value === "string" ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "") : null

export const makeMcpRoutes = (options: McpRoutesOptions = {}) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const { origin } = yield* Issuer
      const context = yield* Effect.context<McpPorts>()
      const ports = withPorts(toolSurfacePortServices, context)
      const endpoint = makeMcpEndpoint({ origin, run: Effect.runPromiseWith(context), ...options })
      yield* router.add("*", mcpPath, Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        // The router ignores a `;…` suffix; the endpoint is the path exactly as sent, so `/api/mcp;x` is not it.
        if (hasMatrixParameters(request.url)) return HttpServerResponse.fromWeb(notThisEndpoint())
        const body = request.method === "POST" ? yield* request.text : ""
        // Every Authorization field the client sent, joined (Node keeps only the first): two are refused in the handler.
        const authorization = webValue(authorizationOf(request.headers, request.source))
        const query = request.url.indexOf("?")
        const url = `${origin}${mcpPath}${query < 0 ? "" : new URL(request.url, origin).search}`
        const header = (name: string) => {
          if (name === "authorization") return authorization
          return webValue(request.headers[name])
        }
        const notes = yield* RequestNotes
        // The request's effects run in the request's own context (its scope, its request, its log annotations) with the
        // ports it lacks (withPorts): a finalizer one adds runs when the request ends, not when the server stops.
        const run = Effect.runPromiseWith(ports.into(yield* Effect.context<never>()))
        const answer = yield* Effect.promise((signal) => endpoint({
          method: request.method, url, headers: { get: header }, signal,
          // The web Request the SDK reads, built only when it answers: the body it forwards (not built a second time),
          // the query (a credential there is refused) and the signal that aborts when the client leaves.
          web: () => {
            const headers = new Headers()
            for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value)
            if (authorization !== null) headers.set("authorization", authorization)
            return new Request(url, { method: request.method, headers, signal, ...(request.method === "POST" ? { body } : {}) })
          }
        }, body, notes, run))
        return yield* answerOf(answer)
      }))
    })
  )

export const McpRoutes = makeMcpRoutes()
