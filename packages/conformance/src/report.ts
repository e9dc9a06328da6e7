// The report: per rule passed / deviated / not applicable, as a human table, JSON and JUnit XML. A deviation carries
// the shortest sequence found, its seed and path, the requests and answers of that sequence, and the rule's spec row.
import { type Profile, type RuleId, ruleIds, rules, rulesOff } from "./rules.ts"
import type { Deviation, SequenceOutcome } from "./sequences.ts"

export type Verdict = "passed" | "deviated" | "not applicable"

export interface RuleResult {
  readonly id: RuleId
  readonly title: string
  readonly row: string
  readonly verdict: Verdict
  /** Why not applicable, or which phase deviated. */
  readonly note: string | null
}

export interface DeviationReport {
  readonly phase: "tour" | "random"
  readonly rules: ReadonlyArray<RuleId>
  readonly rows: ReadonlyArray<string>
  readonly command: string
  readonly expected: ReadonlyArray<string>
  readonly reasons: ReadonlyArray<string>
  readonly sequence: ReadonlyArray<{ readonly command: string; readonly answers: ReadonlyArray<string>; readonly wire: ReadonlyArray<{ readonly method: string; readonly url: string; readonly request: string; readonly status: number; readonly answer: string }> }>
  readonly replay: { readonly seed: number; readonly path: string } | null
}

export interface Report {
  readonly issuer: string
  readonly profile: Profile
  readonly consent: string
  readonly quick: boolean
  readonly probe: boolean
  readonly revocation: boolean
  readonly runs: number
  readonly seed: number | null
  readonly notes: ReadonlyArray<string>
  readonly rules: ReadonlyArray<RuleResult>
  readonly deviations: ReadonlyArray<DeviationReport>
  readonly passed: boolean
}

const deviationReport = (phase: "tour" | "random", outcome: SequenceOutcome, deviation: Deviation): DeviationReport => ({
  phase,
  rules: deviation.rules,
  rows: deviation.rules.map((r) => rules[r].row),
  command: deviation.command,
  expected: deviation.expected,
  reasons: deviation.reasons,
  sequence: deviation.log.map((s) => ({ command: s.command, answers: s.answers, wire: s.wire })),
  replay: outcome.replay
})

/** What the run was: the report's own facts, as the run knows them. */
export type RunFacts = Pick<Report, "issuer" | "profile" | "consent" | "quick" | "probe" | "revocation" | "seed" | "notes">

export const buildReport = (input: RunFacts & {
  readonly exercised: ReadonlySet<RuleId>
  readonly tour: ReadonlyArray<SequenceOutcome>
  readonly random: SequenceOutcome | null
}): Report => {
  const deviations: Array<DeviationReport> = []
  for (const outcome of input.tour) if (outcome.deviation !== null) deviations.push(deviationReport("tour", outcome, outcome.deviation))
  if (input.random?.deviation != null) deviations.push(deviationReport("random", input.random, input.random.deviation))
  const off = rulesOff(input.profile)
  const deviated = new Map<RuleId, string>()
  for (const d of deviations) {
    const first = d.rules[0]
    if (first !== undefined && !deviated.has(first)) deviated.set(first, d.phase)
  }
  const needsProbe: ReadonlySet<RuleId> = new Set(["access.after-rotation", "access.withdrawn", "access.ended-grant", "revoke.access"])
  const results = ruleIds.map((id): RuleResult => {
    const rule = rules[id]
    const base = { id, title: rule.title, row: rule.row }
    if (deviated.has(id)) return { ...base, verdict: "deviated", note: `found in the ${deviated.get(id)} sequences` }
    if (off.has(id)) return { ...base, verdict: "not applicable", note: `the ${input.profile.name} profile does not promise it` }
    if (input.exercised.has(id)) return { ...base, verdict: "passed", note: null }
    if (!input.revocation && id.startsWith("revoke.")) return { ...base, verdict: "not applicable", note: "no revocation endpoint" }
    if (!input.probe && needsProbe.has(id)) return { ...base, verdict: "not applicable", note: "no resource probe" }
    return { ...base, verdict: "not applicable", note: deviations.length > 0 ? "not reached before the deviation" : input.quick ? "not reached (--quick skips the waits)" : "not reached by these sequences" }
  })
  return {
    issuer: input.issuer, profile: input.profile, consent: input.consent, quick: input.quick, probe: input.probe,
    revocation: input.revocation, runs: input.random?.runs ?? 0, seed: input.seed, notes: input.notes, rules: results, deviations,
    passed: deviations.length === 0
  }
}

/** The human table and each deviation with its sequence. */
export const formatText = (report: Report): string => {
  const lines: Array<string> = []
  lines.push(`OAuth state-transition conformance: ${report.issuer}, profile ${report.profile.name}, consent driver ${report.consent}`)
  if (report.quick) lines.push("--quick: the waits past the retry window were skipped; rules that need them are not reached")
  for (const note of report.notes) lines.push(`  ${note}`)
  lines.push("")
  const width = Math.max(...report.rules.map((r) => r.id.length))
  for (const r of report.rules)
    lines.push(`${r.verdict === "passed" ? "PASS" : r.verdict === "deviated" ? "FAIL" : "n/a "}  ${r.id.padEnd(width)}  ${r.title}${r.note === null ? "" : ` (${r.note})`}`)
  lines.push("")
  const count = (v: Verdict) => report.rules.filter((r) => r.verdict === v).length
  lines.push(`${count("passed")} passed, ${count("deviated")} deviated, ${count("not applicable")} not applicable; the tour and ${report.runs} random sequences${report.seed === null ? "" : `, seed ${report.seed}`}`)
  for (const d of report.deviations) {
    lines.push("")
    lines.push(`DEVIATION (${d.phase}${d.replay === null ? "" : `, replay with --seed ${d.replay.seed} --path ${d.replay.path}`}): ${d.rules.join(", ")}`)
    for (const row of d.rows) lines.push(`  breaks: ${row}`)
    lines.push(`  at ${d.command}: ${d.reasons.filter((r) => r !== "as predicted").join("; ")}`)
    lines.push(`  shortest sequence (${d.sequence.length} steps):`)
    d.sequence.forEach((s, i) => {
      lines.push(`   ${String(i + 1).padStart(2)}. ${s.command} → ${s.answers.join(", ")}`)
      for (const w of s.wire) lines.push(`         ${w.method} ${w.url}${w.request === "" ? "" : ` [${w.request}]`} → ${w.status} ${w.answer.replace(/\s+/g, " ").slice(0, 160)}`)
    })
  }
  return lines.join("\n")
}

const xml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "\"": "&quot;", "'": "&apos;" })[c] ?? c)
  // XML 1.0 allows no control characters but tab, newline and carriage return.
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")

/** JUnit XML: one test case per rule; a deviation is a failure, not applicable is skipped. */
export const formatJUnit = (report: Report): string => {
  const failures = report.rules.filter((r) => r.verdict === "deviated").length
  const skipped = report.rules.filter((r) => r.verdict === "not applicable").length
  const text = formatText(report)
  const cases = report.rules.map((r) => {
    const open = `    <testcase classname="conformance.${xml(report.profile.name)}" name="${xml(`${r.id}: ${r.title}`)}">`
    if (r.verdict === "passed") return `${open}</testcase>`
    if (r.verdict === "not applicable") return `${open}<skipped message="${xml(r.note ?? "")}"/></testcase>`
    return `${open}<failure message="${xml(r.row)}">${xml(text)}</failure></testcase>`
  })
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="adgate conformance" tests="${report.rules.length}" failures="${failures}" skipped="${skipped}">`,
    `  <testsuite name="${xml(`${report.profile.name} against ${report.issuer}`)}" tests="${report.rules.length}" failures="${failures}" skipped="${skipped}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    ""
  ].join("\n")
}
