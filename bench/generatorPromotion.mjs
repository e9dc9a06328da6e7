// Round 11 (bench/README.md, "Found: a generator function made per call…"): what V8 promotes to the old generation
// when a generator function is written inside code that runs per call. 1 000 000 calls each make a ~0.5 KB object
// and read it back: in a plain closure (`plain`), in a generator function made per call (`gen`, `genyield`: the
// shape of `(row) => Effect.gen(function* () { … })`), or in a generator function made once and given the object
// (`genfn`: the shape of `Effect.fnUntraced(function* (row) { … })`).
//
//   node --trace-gc-nvp --max-semi-space-size=8 bench/generatorPromotion.mjs gen | node bench/generatorPromotion.mjs --sum
//
// `--sum` reads --trace-gc-nvp's lines on stdin and prints the scavenges' promoted bytes. Measured with Node 24 and
// Node 20 alike: plain 0.23 MB, gen 551 MB, genyield 522 MB, genfn 0.23 MB.
import { createInterface } from "node:readline"

const mode = process.argv[2] ?? "gen"

if (mode === "--sum") {
  let scavenges = 0
  let promoted = 0
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.includes("gc=s ")) continue
    scavenges += 1
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0)
  }
  console.log(JSON.stringify({ scavenges, promotedMB: Math.round(promoted / 1e4) / 100 }))
} else if (!["plain", "gen", "genyield", "genfn"].includes(mode)) {
  console.error(`usage: node bench/generatorPromotion.mjs plain|gen|genyield|genfn, or --sum on --trace-gc-nvp lines`)
  process.exitCode = 2
} else {
  function* once(row) { return row }
  const make = (i) => ({ a: "x".repeat(20) + i, b: Array.from({ length: 40 }, (_, k) => k + i), c: { d: i, e: "y" + i } })
  let sink = 0
  for (let round = 0; round < 200; round++) {
    for (let i = 0; i < 5000; i++) {
      const row = make(i)
      if (mode === "gen") {
        sink += (function* () { return row })().next().value.c.d
      } else if (mode === "genyield") {
        const g = (function* () { const x = yield 1; return row.c.d + x })()
        g.next()
        sink += g.next(1).value
      } else if (mode === "genfn") {
        sink += once(row).next().value.c.d
      } else if (mode === "plain") {
        sink += (() => row)().c.d
      }
    }
    // A turn of the event loop between rounds, as requests have.
    await new Promise((resolve) => setImmediate(resolve))
  }
  console.error(JSON.stringify({ mode, sink }))
}
