// Bench-only probe (round 11): counts WeakMap.set / WeakSet.add / new WeakRef / FinalizationRegistry.register and
// timers by delay, printed every 2 s to stdout as `probe t=… key=count …`, to see what a request makes per call.
const counts = Object.create(null)
const bump = (k) => { counts[k] = (counts[k] ?? 0) + 1 }
const site = () => {
  const e = {}; const lim = Error.stackTraceLimit; Error.stackTraceLimit = 4; Error.captureStackTrace(e); Error.stackTraceLimit = lim
  const line = (e.stack ?? "").split("\n")[3] ?? "?"
  return line.replace(/^\s*at\s*/, "").replace(/.*node_modules\//, "").replace(/\s+/g, "_").slice(-90)
}
const wmSet = WeakMap.prototype.set
WeakMap.prototype.set = function (k, v) { bump("WeakMap.set@" + site()); return wmSet.call(this, k, v) }
const wsAdd = WeakSet.prototype.add
WeakSet.prototype.add = function (v) { bump("WeakSet.add@" + site()); return wsAdd.call(this, v) }
const WR = globalThis.WeakRef
globalThis.WeakRef = class extends WR { constructor(t) { super(t); bump("WeakRef@" + site()) } }
const reg = FinalizationRegistry.prototype.register
FinalizationRegistry.prototype.register = function (...a) { bump("FR.register@" + site()); return reg.apply(this, a) }
const st = globalThis.setTimeout
globalThis.setTimeout = function (f, ms, ...a) { bump(`setTimeout(${ms})@` + site()); return st(f, ms, ...a) }
const t0 = Date.now()
setInterval(() => {
  const top = Object.entries(counts).filter(([, n]) => n > 100).sort((a, b) => b[1] - a[1]).slice(0, 25)
  process.stdout.write(`probe t=${Date.now() - t0} ${top.map(([k, n]) => `${k}=${n}`).join(" ")}\n`)
}, 2000).unref()
// Who enables async hooks or subscribes to diagnostics channels (each logged once, with its caller).
import asyncHooks from "node:async_hooks"
import dc from "node:diagnostics_channel"
const where = () => { const lim = Error.stackTraceLimit; Error.stackTraceLimit = 8; const s = new Error().stack; Error.stackTraceLimit = lim; return s.split("\n").slice(2, 7).map((l) => l.trim()).join(" <- ") }
const createHook = asyncHooks.createHook
asyncHooks.createHook = function (h) { process.stdout.write(`probe createHook ${Object.keys(h).join(",")} ${where()}\n`); return createHook.call(this, h) }
const subscribe = dc.subscribe
dc.subscribe = function (name, f) { process.stdout.write(`probe dc.subscribe ${String(name)} ${where()}\n`); return subscribe.call(this, name, f) }
const chSub = dc.Channel.prototype.subscribe
dc.Channel.prototype.subscribe = function (f) { process.stdout.write(`probe channel.subscribe ${String(this.name)} ${where()}\n`); return chSub.call(this, f) }
