// The page assets served from our own origin: one stylesheet and one small script (CSP 'self', no inline code).
import { Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { script, scriptPath, stylesheet, stylesheetPath } from "./layout.ts"

const cached = { "cache-control": "public, max-age=3600" }

export const AssetRoutes = Layer.mergeAll(
  HttpRouter.add("GET", stylesheetPath, HttpServerResponse.text(stylesheet, { contentType: "text/css; charset=utf-8", headers: cached })),
  HttpRouter.add("GET", scriptPath, HttpServerResponse.text(script, { contentType: "text/javascript; charset=utf-8", headers: cached }))
)
