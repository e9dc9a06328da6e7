// The HTTP framework's floor (bench/README.md, round 7b): adgate's own server composition (apps/server/src/main.ts:
// the same configuration, ports, stores, pool, database, policy, logger and tracing-off path), but the measured
// requests are answered by a bare `node:http` handler over the same core call, without Effect's HTTP server, the
// router or adgate's middlewares:
//   POST /oauth/token   readBodyParams' form parsing, guardClientAuthentication(handleTokenRequest) as TokenRoutes
//                       runs it, JSON.stringify of the answer with the route's headers (errors: 400 JSON);
//   GET /.well-known/oauth-authorization-server   the discovery document, serialized once;
//   OPTIONS /oauth/token                          the CORS preflight, a constant 204.
// Every other request (registration, sign-in, the consent pages of the bench's untimed set-up) goes to adgate's full
// application in the same process, so that the set-up is the one the real server gets. Run like main.ts, with
// BENCH_ADGATE_SCRIPT=bench/servers/tokenFloor.mjs (targets/adgate.mjs). Not a product file: bench/ only.
// PROBE_MODE (round 11: what the refresh's call promotes into the old generation) cuts the refresh_token requests'
// handler down: const (the form parsed, the presented refresh token echoed as a token answer, no Effect), fiber (the
// same through run(Effect.succeed)), read (Secrets.hash and GrantReader.clientAndRefreshGrounds, as core's
// prereadRefresh does, then the echo), refresh (refreshConnection alone, no client authentication); unset, the full
// call. The set-up's code exchanges always get the full call. An unknown mode stops the start. The echo goes back to
// the bench's own client only; nothing is logged.
// The probes in probes/ (weak-structure counters, the statement-cache skip) load first with Node's --import:
//   "count:BENCH_ADGATE_SCRIPT=bench/servers/tokenFloor.mjs|--import=./bench/servers/probes/countWeak.mjs"
import { createServer } from "node:http"
import { Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { SqlClient } from "effect/sql"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { adgateMetadataFetcher, adgatePolicy, adgateRoutes, LogfmtLogger } from "adgate"
import { DevelopmentMailbox, makeShutdownFlag, pendingMigrations, Readiness } from "adgate/server"
import { GrantReader, handleTokenRequest, Issuer, refreshConnection, Secrets } from "@adgate/core"
import { appPorts } from "../../apps/server/src/appPorts.ts"
import { loadAppConfig } from "../../apps/server/src/config.ts"
import { seedOnFirstStart } from "../../apps/server/src/seed.ts"
import { TracingLayer } from "../../apps/server/src/tracing.ts"
import { guardClientAuthentication } from "../../packages/adapters-http/src/oauth/clientAuthenticationGuard.ts"
import { parseFormEncoded } from "../../packages/adapters-http/src/oauth/requestParams.ts"
import { authorizationServerMetadata } from "../../packages/adapters-http/src/discovery/metadata.ts"

const tokenHeaders = { "content-type": "application/json", "cache-control": "no-store", "access-control-allow-origin": "*" }

const floorLayer = Layer.effectDiscard(Effect.gen(function* () {
  const config = yield* loadAppConfig
  const context = yield* Effect.context()
  const scope = yield* Effect.scope
  // adgate's whole application for everything the floor does not answer (the set-up's pages).
  const full = yield* NodeHttpServer.makeHandler(yield* HttpRouter.toHttpEffect(adgateRoutes()), { scope })
  const run = Effect.runPromiseExitWith(context)
  const { origin } = yield* Issuer
  const discovery = JSON.stringify(authorizationServerMetadata(origin))
  const probeMode = process.env.PROBE_MODE ?? "full"
  if (!["full", "const", "fiber", "read", "refresh"].includes(probeMode)) throw new Error(`PROBE_MODE: no mode ${probeMode}`)
  // Made once (docs/architecture.md, "Code on the request path"): a generator made per request would measure itself.
  const readProbe = Effect.fnUntraced(function* (clientId, presented, echo) {
    const hash = yield* (yield* Secrets).hash(presented)
    yield* (yield* GrantReader).clientAndRefreshGrounds(clientId, hash)
    return echo
  })
  const token = (request, response) => {
    const chunks = []
    request.on("data", (chunk) => chunks.push(chunk))
    request.on("end", () => {
      const parsed = parseFormEncoded(Buffer.concat(chunks).toString("utf8"))
      if (parsed._tag !== "Success") return response.writeHead(400, tokenHeaders).end('{"error":"invalid_request"}')
      const params = parsed.success
      const clientId = params.find(([key]) => key === "client_id")?.[1]
      const answer = (exit) => exit._tag === "Success"
        ? response.writeHead(200, tokenHeaders).end(JSON.stringify(exit.value))
        : response.writeHead(400, tokenHeaders).end(`{"error":"${exit.cause.reasons[0]?.error?._tag ?? "server_error"}"}`)
      if (probeMode !== "full" && params.some(([key, value]) => key === "grant_type" && value === "refresh_token")) {
        const presented = params.find(([key]) => key === "refresh_token")?.[1]
        const echo = { access_token: "x", token_type: "Bearer", expires_in: 3600, refresh_token: presented, scope: "" }
        if (probeMode === "const") return response.writeHead(200, tokenHeaders).end(JSON.stringify(echo))
        const probe = probeMode === "fiber" ? Effect.succeed(echo)
          : probeMode === "read" ? readProbe(clientId, presented, echo)
          : Effect.map(refreshConnection({ refreshToken: presented, clientId, scope: null, surface: null }),
            ({ tokens }) => ({ access_token: tokens.accessToken, token_type: "Bearer", expires_in: tokens.expiresIn, refresh_token: tokens.refreshToken, scope: "" }))
        return run(probe).then(answer)
      }
      run(guardClientAuthentication({ address: request.socket.remoteAddress ?? "unknown", clientId }, handleTokenRequest({ params, basic: null })))
        .then(answer)
    })
  }
  // PROBE_LOOP (round 11): 16 loops of the refresh's read (GrantReader.clientAndRefreshGrounds, the port as the server
  // composes it) in this process, without HTTP per call, over the refresh tokens stored, for at most 60 s; answers how
  // many ran. With --trace-gc-nvp, `promoted` per call is what the read keeps past the scavenges (3.3 KB per read
  // before 7af19ca, 0.28 KB after). Read once, at start: off, the route does not exist.
  const probeLoopOn = process.env.PROBE_LOOP !== undefined && process.env.PROBE_LOOP !== ""
  const readLoop = Effect.fnUntraced(function* (seconds) {
    const sql = yield* SqlClient.SqlClient
    const hashes = (yield* sql`SELECT hash FROM connection_refresh_tokens`).map((row) => row.hash)
    const [client] = yield* sql`SELECT client_id FROM clients WHERE client_id IN (SELECT client_id FROM connections) LIMIT 1`
    const grants = yield* GrantReader
    const stopAt = Date.now() + seconds * 1000
    let count = 0
    const loop = Effect.fnUntraced(function* (i) {
      while (Date.now() < stopAt) {
        yield* grants.clientAndRefreshGrounds(client.clientId, hashes[(i + count) % hashes.length])
        count++
      }
    })
    yield* Effect.forEach(Array.from({ length: 16 }, (_, i) => i), loop, { concurrency: 16 })
    return { count, hashes: hashes.length }
  })
  const probeLoop = (url, response) => {
    const seconds = Math.min(60, Number(new URL(url, "http://probe").searchParams.get("seconds") ?? 10) || 10)
    run(readLoop(seconds)).then((exit) => exit._tag === "Success"
      ? response.writeHead(200, tokenHeaders).end(JSON.stringify(exit.value))
      : response.writeHead(500, tokenHeaders).end('{"error":"probe failed"}'))
  }
  const server = createServer((request, response) => {
    const url = request.url
    if (url === "/oauth/token" && request.method === "POST") return token(request, response)
    if (url === "/.well-known/oauth-authorization-server" && request.method === "GET")
      return response.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*", "cache-control": "public, max-age=3600" }).end(discovery)
    if (url === "/oauth/token" && request.method === "OPTIONS")
      return response.writeHead(204, {
        "access-control-allow-origin": "*", "access-control-allow-methods": "POST, OPTIONS",
        "access-control-allow-headers": "authorization, content-type, dpop", "access-control-max-age": "86400"
      }).end()
    // GET /probe/loop?seconds=S (PROBE_LOOP, above).
    if (probeLoopOn && url?.startsWith("/probe/loop") && request.method === "GET") return probeLoop(url, response)
    full(request, response)
  })
  yield* Effect.acquireRelease(
    Effect.callback((resume) => { server.listen(config.port, Option.getOrElse(config.host, () => "0.0.0.0"), () => resume(Effect.void)) }),
    () => Effect.callback((resume) => { server.closeAllConnections(); server.close(() => resume(Effect.void)) })
  )
  yield* Effect.logInfo(`token floor listening on ${config.port}`)
}))

const program = Effect.gen(function* () {
  const config = yield* loadAppConfig
  Error.stackTraceLimit = 0
  const ports = appPorts(config)
  const shutdown = makeShutdownFlag()
  // As main.ts's serverLayer: the readiness checks, the development mailbox, the policy.
  const readiness = Layer.effect(Readiness, Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return { shuttingDown: shutdown.isSet, pendingMigrations: Effect.provideService(pendingMigrations, SqlClient.SqlClient, sql) }
  })).pipe(Layer.provide(ports))
  const mailbox = Layer.succeed(DevelopmentMailbox, { open: true, instanceAdmins: ["admin@example.com"] })
  const policy = Layer.mergeAll(
    adgatePolicy({
      rateLimits: config.rateLimits, inputLimits: config.inputLimits, trustedProxies: config.trustedProxies,
      recognisedProducts: config.recognisedProducts, workLeases: config.workLeases
    }),
    mailbox, readiness
  )
  const seeded = Layer.effectDiscard(seedOnFirstStart({ adminEmail: config.adminEmail, adminPassword: config.adminPassword }))
  const layer = floorLayer.pipe(
    Layer.provide(seeded), Layer.provide(adgateMetadataFetcher), Layer.provide(ports), Layer.provide(policy),
    Layer.provide(TracingLayer(config.tracing))
  )
  return yield* Layer.launch(layer)
}).pipe(Effect.provide(LogfmtLogger))

NodeRuntime.runMain(program)
