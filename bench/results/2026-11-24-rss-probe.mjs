import { registerHooks } from "node:module"
import { writeFileSync, readFileSync } from "node:fs"
import v8 from "node:v8"
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
const gc = {}
new PerformanceObserver((list) => { for (const e of list.getEntries()) { const k = e.detail?.kind ?? e.kind; const g = (gc[k] ??= { n: 0, ms: 0, max: 0 }); g.n++; g.ms += e.duration; g.max = Math.max(g.max, e.duration) } }).observe({ entryTypes: ["gc"] })
const loaded = new Set()
registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context) } })
const out = process.env.PROBE_OUT ?? `/tmp/rss/probe-${process.pid}.log`
const h = monitorEventLoopDelay({ resolution: 10 }); h.enable()
const dump = (tag) => {
  const m = process.memoryUsage()
  const mib = (x) => (x / 1048576).toFixed(1)
  const roll = readFileSync("/proc/self/smaps_rollup", "utf8").split("\n").filter((l) => /^(Rss|Pss|Anonymous|Pss_File|Pss_Anon)/.test(l)).map((l) => l.replace(/\s+/g, " ")).join("; ")
  const spaces = v8.getHeapSpaceStatistics().map((s) => `${s.space_name.replace("_space", "")}=${mib(s.space_size)}/${mib(s.space_used_size)}`).join(" ")
  const byPkg = {}
  for (const u of loaded) { const m2 = u.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/); const k = m2 ? m2[1] : u.startsWith("node:") ? "node:" : u.includes("/packages/") || u.includes("/apps/") ? "adgate" : "other"; byPkg[k] = (byPkg[k] ?? 0) + 1 }
  writeFileSync(out, `${new Date().toISOString()} ${tag} rss=${mib(m.rss)} heapTotal=${mib(m.heapTotal)} heapUsed=${mib(m.heapUsed)} ext=${mib(m.external)} ab=${mib(m.arrayBuffers)} eld p50=${(h.percentile(50)/1e6).toFixed(1)} p99=${(h.percentile(99)/1e6).toFixed(1)} max=${(h.max/1e6).toFixed(1)}\n  ${roll}\n  ${spaces}\n  gc ${JSON.stringify(Object.fromEntries(Object.entries(gc).map(([k, g]) => [k, `${g.n}x ${g.ms.toFixed(0)}ms max ${g.max.toFixed(1)}`])))}
  modules ${loaded.size} ${JSON.stringify(byPkg)}\n`, { flag: "a" })
  h.reset(); for (const k of Object.keys(gc)) delete gc[k]
}
setInterval(() => dump("tick"), Number(process.env.PROBE_EVERY ?? 5000)).unref()
process.on("SIGUSR2", () => dump("usr2"))
