// Micro-measures of two per-request costs of the HTTP pipeline (bench/README.md, round 7b), in one process, the two
// sides alternated 15 times so that a moment of a shared machine hits both: figures that the ±50 % of whole-server
// windows cannot resolve.
//   1. the request's log line: Effect's Logger.formatLogFmt (through the one-message wrapper, as before) against
//      LogfmtLogger's own formatter, on the request line's annotations;
//   2. a request's context: the ~11 services a request adds (HTTP server, middlewares, router) and ~20 lookups, on
//      a context of the server's size with Effect's default depth (8: the whole map copied once per request) and
//      with serve.ts's room (withRoomForRequests).
// Run: flock /tmp/adgate-bench.lock npx node bench/pipelineMicro.mjs
import { Cause, Context, Logger, References } from "effect"
import { formatLogfmtOneMessage, oneMessage } from "../packages/adgate/src/LogfmtLogger.ts"
import { withRoomForRequests } from "../packages/adapters-http/src/serve.ts"

const rounds = 15
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const cpuNs = (f, n) => {
  const start = process.cpuUsage()
  f(n)
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / n
}
const compare = (name, a, b, n) => {
  for (let i = 0; i < 3; i++) { a.run(n / 10); b.run(n / 10) }
  const as = [], bs = [], ratios = []
  for (let r = 0; r < rounds; r++) {
    let x, y
    if (r % 2 === 0) { x = cpuNs(a.run, n); y = cpuNs(b.run, n) } else { y = cpuNs(b.run, n); x = cpuNs(a.run, n) }
    as.push(x); bs.push(y); ratios.push(y / x)
  }
  console.log(`${name}: ${a.label} ${median(as).toFixed(0)} ns, ${b.label} ${median(bs).toFixed(0)} ns per request (medians of ${rounds}); ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`)
}

// 1. The request line (security.ts): message "http" and the line's annotations.
const annotations = {
  requestId: "0b8f2c1e-9a7d-4c31-8e55-2f0d3b6a7c19", method: "POST", path: "/oauth/token", status: 200, durationMs: 3,
  route: "/oauth/token", client: "127.0.0.1"
}
const fiber = { id: 1234, getRef: (ref) => (ref === References.CurrentLogAnnotations ? annotations : ref === References.CurrentLogSpans ? [] : ref.defaultValue()) }
const options = { message: "http", logLevel: "Info", cause: Cause.empty, date: new Date(), fiber }
const before = (o) => Logger.formatLogFmt.log({ ...o, message: oneMessage(o.message) })
if (before(options) !== formatLogfmtOneMessage.log(options)) throw new Error("the two formatters differ")
let sink = 0
compare("log line", { label: "Effect formatLogFmt", run: (n) => { for (let i = 0; i < n; i++) sink += before(options).length } },
  { label: "LogfmtLogger", run: (n) => { for (let i = 0; i < n; i++) sink += formatLogfmtOneMessage.log(options).length } }, 200_000)

// 2. A request's context on a base of the server's size (45 services measured on apps/server at the handler).
const keys = Array.from({ length: 45 }, (_, i) => `service/${i}`)
const base = Context.makeUnsafe(new Map(keys.map((k) => [k, { k }])))
const roomy = withRoomForRequests(base)
const added = Array.from({ length: 11 }, (_, i) => `request/${i}`)
const request = (root) => (n) => {
  for (let i = 0; i < n; i++) {
    let context = root
    for (const key of added) context = Context.addUnsafe(context, key, i)
    for (let j = 0; j < 20; j++) sink += Context.getUnsafe(context, { key: j % 2 === 0 ? keys[j] : added[j % 11] }) === undefined ? 0 : 1
  }
}
compare("request context", { label: "depth 8", run: request(base) }, { label: `room (withRoomForRequests)`, run: request(roomy) }, 200_000)
if (sink === 0) console.log("")
