// CPU and memory of processes read from /proc (Linux): the server process, and the PostgreSQL backends that serve a
// database (found through pg_stat_activity), so that a scenario can report CPU per request for each side.
import { readFileSync } from "node:fs"
import { execFileSync } from "node:child_process"

let ticksPerSecond = 100
try {
  ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
} catch {}

/** utime + stime of one process (all its threads), in milliseconds; null when it is gone. */
export const cpuMs = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name is in parentheses and may contain spaces: split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
  } catch {
    return null
  }
}

/** Resident set size in MiB; null when the process is gone. */
export const rssMiB = (pid) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1])
    return Math.round((kb / 1024) * 10) / 10
  } catch {
    return null
  }
}

/** A CPU snapshot of a changing set of processes: pid → ms. */
export const snapshot = (pids) => new Map(pids.map((pid) => [pid, cpuMs(pid)]).filter(([, ms]) => ms !== null))

/**
 * CPU spent between two snapshots. A process present only in the later one is new: all of its CPU counts. A process
 * gone by the later snapshot is not counted after the earlier one (its share is lost; backends live as long as the
 * pool, which outlives a scenario).
 */
export const spentMs = (before, after) => {
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/** Pins a process (all threads) to one CPU with taskset when present; returns whether it did. */
export const pin = (pid, cpu) => {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}
