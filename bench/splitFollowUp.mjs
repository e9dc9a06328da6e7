// Scenario b's figures split into the exchange alone and its follow-up (round 14, bench/README.md), from the output of
// an interleaved run: `ROUNDS=6 SCEN=b CODES=1000 OIDC=tuned node bench/ab.mjs … > file`, then
//
//   node bench/splitFollowUp.mjs file
//
// b's serverCpuMsPerReq and dbCpuMsPerReq include the follow-up (the audit entries and the admins' mail, made by the
// background readers after the answers: scenarios.mjs withFollowUp), which the window line also gives alone
// (`followUp`). Per round: the anchor's CPU per exchange, and for each variant the exchange alone, its follow-up, and
// the CPU efficiency against the anchor with and without the follow-up; then each variant's medians and spread.
import { readFileSync } from "node:fs"
import { median, spread } from "./lib/stats.mjs"

const file = process.argv[2]
if (file === undefined) throw new Error("usage: node bench/splitFollowUp.mjs <output of ab.mjs with SCEN=b and OIDC=tuned>")
const windows = readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
  .filter((w) => w.scenario === "b")
const rounds = new Map()
for (const w of windows) {
  if (!rounds.has(w.round)) rounds.set(w.round, new Map())
  rounds.get(w.round).set(w.label, w)
}
const anchorLabel = "oidc-tuned"
const labels = [...new Set(windows.map((w) => w.label))].filter((l) => l !== anchorLabel)
const figures = new Map(labels.map((l) => [l, { alone: [], server: [], db: [], followUp: [], efficiency: [], efficiencyAlone: [] }]))
const cpu = (w) => w.serverCpuMsPerReq + w.dbCpuMsPerReq
for (const [round, byLabel] of [...rounds].sort((a, b) => a[0] - b[0])) {
  const anchor = byLabel.get(anchorLabel)
  if (anchor === undefined) continue
  const line = [`round ${round}: ${anchorLabel} ${cpu(anchor).toFixed(3)} ms`]
  for (const label of labels) {
    const w = byLabel.get(label)
    if (w === undefined || w.followUp === undefined) continue
    const followUp = w.followUp.serverCpuMsPerReq + w.followUp.dbCpuMsPerReq
    const alone = cpu(w) - followUp
    const f = figures.get(label)
    f.alone.push(alone)
    f.server.push(w.serverCpuMsPerReq - w.followUp.serverCpuMsPerReq)
    f.db.push(w.dbCpuMsPerReq - w.followUp.dbCpuMsPerReq)
    f.followUp.push(followUp)
    f.efficiency.push(cpu(anchor) / cpu(w))
    f.efficiencyAlone.push(cpu(anchor) / alone)
    line.push(`${label} alone ${alone.toFixed(3)} + follow-up ${followUp.toFixed(3)} ms, efficiency ${(cpu(anchor) / cpu(w)).toFixed(2)}, alone ${(cpu(anchor) / alone).toFixed(2)}`)
  }
  console.log(line.join(" | "))
}
for (const [label, f] of figures) {
  if (f.alone.length === 0) continue
  console.log(`${label}: the exchange alone ${median(f.alone).toFixed(3)} ms (server ${median(f.server).toFixed(3)} + DB ${median(f.db).toFixed(3)}), ` +
    `its follow-up ${median(f.followUp).toFixed(3)} ms; CPU efficiency with the follow-up ${spread(f.efficiency)}, alone ${spread(f.efficiencyAlone)}`)
}
