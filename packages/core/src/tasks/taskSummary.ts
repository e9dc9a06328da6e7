// The report's paragraph for people (docs/tasks.md, Report): what was read with its numbers, what changed, what
// waits for whom, what failed. Pure.
import type { TaskReport } from "./TaskPlan.ts"

const money = (n: number) => n.toFixed(2)

export const taskSummary = (report: TaskReport): string => {
  const parts: Array<string> = []
  const ok = report.reads.filter((r) => r.ok).length
  if (report.reads.length > 0) parts.push(`Read ${ok} of ${report.reads.length} step${report.reads.length === 1 ? "" : "s"}${report.period === null ? "" : ` for ${report.period.startDate} to ${report.period.endDate}`}.`)
  if (report.totals !== null) {
    const t = report.totals
    parts.push(`Spend ${money(t.spend)}, ${t.conversions} conversions, cost per conversion ${t.costPerConversion === null ? "n/a" : money(t.costPerConversion)}, revenue ${money(t.revenue)}, ROAS ${t.roas ?? "n/a"}.`)
  }
  if (report.findings.length > 0) parts.push(`Found ${report.findings.length}: ${report.findings.map((f) => `"${f.name}"`).join(", ")}.`)
  const by = (s: ReadonlyArray<string>) => report.changes.filter((c) => s.includes(c.status))
  const executed = by(["executed"])
  const waiting = by(["pending_approval", "approved"])
  const notDone = by(["failed", "rejected", "expired", "refused"])
  if (executed.length > 0) parts.push(`Changed ${executed.length}: ${executed.map((c) => `${c.tool} on "${c.target.name}"`).join(", ")}.`)
  if (waiting.length > 0) parts.push(`${waiting.length} change${waiting.length === 1 ? " waits" : "s wait"} for a workspace admin or editor: ${waiting.map((c) => `${c.tool} on "${c.target.name}" (${c.requestId})`).join(", ")}.`)
  if (notDone.length > 0) parts.push(`Not changed ${notDone.length}: ${notDone.map((c) => `${c.tool} on "${c.target.name}" ${c.status}`).join(", ")}.`)
  if (report.changes.length === 0 && report.outcome !== "failed" && report.reads.length > 0 && report.findings.length === 0 && report.totals === null) parts.push("Nothing found.")
  if (report.failures.length > 0) parts.push(`Problems: ${report.failures.map((f) => f.message).join(" ")}`)
  return parts.join(" ")
}
