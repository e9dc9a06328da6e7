// Where a window's tail is in time (round 11): reads the per-request trace the driver writes with BENCH_TRACE=<file>
// (one JSON line per window: its label and, for each measured request, [start ms from the window's start, latency
// ms]) and prints,
// for each window, its p50 and p99 and the requests at or above its p99 grouped into bursts: requests whose answers
// came within `gap` ms of each other. A tail made of a few bursts of many requests each is the server stalling (a
// collection, a background pass); one spread thinly over the window is queueing.
//
//   BENCH_TRACE=/tmp/t.jsonl node bench/run.mjs --only a16 --targets adgate-pg --duration 20 --no-readme
//   node bench/tailTrace.mjs /tmp/t.jsonl [gap ms, default 50]
import { readFileSync } from "node:fs"

const [file, gapArg = "50"] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: node bench/tailTrace.mjs <trace.jsonl> [gap ms]")
const gap = Number(gapArg)

// A line is { label, requests } (a bare array of requests before round 11's labels).
const windows = readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
  .map((line) => (Array.isArray(line) ? { label: null, requests: line } : line))
windows.forEach(({ label, requests }, index) => {
  const sorted = requests.map(([, took]) => took).sort((a, b) => a - b)
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
  const p99 = at(99)
  const slow = requests.filter(([, took]) => took >= p99).map(([start, took]) => ({ start, end: start + took, took }))
    .sort((a, b) => a.end - b.end)
  const bursts = []
  for (const request of slow) {
    const last = bursts.at(-1)
    if (last !== undefined && request.end - last.to <= gap) {
      last.to = request.end
      last.count += 1
      last.longest = Math.max(last.longest, request.took)
    } else bursts.push({ from: request.end, to: request.end, count: 1, longest: request.took })
  }
  const inBursts = bursts.filter((b) => b.count >= 4).reduce((n, b) => n + b.count, 0)
  console.log(`window ${index}${label === null ? "" : ` (${label})`}: ${requests.length} requests, p50 ${at(50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ` +
    `${slow.length} at or above p99, ${inBursts} of them in bursts of 4 or more`)
  for (const b of bursts) {
    console.log(`  answered ${(b.from / 1000).toFixed(2)}–${(b.to / 1000).toFixed(2)} s: ${b.count} request(s), longest ${b.longest.toFixed(1)} ms`)
  }
})
