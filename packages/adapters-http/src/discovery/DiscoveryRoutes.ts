// GET routes of the discovery documents (spec §Discovery): /.well-known/oauth-authorization-server (also under
// /api/mcp), the protected
// resource metadata of /api/mcp (also at the bare path) and /api/v1. Public, cacheable, readable from any origin.
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { Issuer } from "@adgate/core"
import { authorizationServerMetadata, discoveryPaths, protectedResourceMetadata } from "./metadata.ts"

const headers = {
  "access-control-allow-origin": "*",
  "cache-control": "public, max-age=3600"
}

const document = (body: unknown) => HttpServerResponse.jsonUnsafe(body, { headers })

const preflight = HttpServerResponse.empty({
  status: 204,
  headers: { ...headers, "access-control-allow-methods": "GET, OPTIONS", "access-control-max-age": "86400" }
})

export const DiscoveryRoutes = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const { origin } = yield* Issuer
    const mcp = document(protectedResourceMetadata(origin, "mcp"))
    const routes: ReadonlyArray<readonly [HttpRouter.PathInput, HttpServerResponse.HttpServerResponse]> = [
      [discoveryPaths.authorizationServer, document(authorizationServerMetadata(origin))],
      // Some MCP hosts insert the well-known path before the MCP server's path (RFC 8414 §3.1 read as if the server
      // were the issuer): the same document answers there.
      [discoveryPaths.authorizationServerOf("mcp"), document(authorizationServerMetadata(origin))],
      [discoveryPaths.protectedResourceOf("mcp"), mcp],
      [discoveryPaths.protectedResource, mcp],
      [discoveryPaths.protectedResourceOf("rest"), document(protectedResourceMetadata(origin, "rest"))]
    ]
    for (const [path, response] of routes) {
      yield* router.add("GET", path, response)
      yield* router.add("OPTIONS", path, preflight)
    }
  })
)
