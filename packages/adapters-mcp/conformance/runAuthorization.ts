// The MCP conformance suite's `authorization` mode (0.2.0-alpha.12, installed as `mcp-conformance-next`) against
// adgate's authorization server, once per protocol date: `authorization-server-metadata-endpoint` (RFC 8414 metadata)
// and `authorization-code-grant` (a real code grant with PKCE, for the MCP server as resource). The code grant needs a
// person's Allow: the suite prints the authorization URL and waits (up to 5 minutes) for the browser to arrive at its
// callback server on 127.0.0.1:<port>/callback. Here the kit's adgate consent driver is that person: it opens the URL,
// signs in, waits out the consent page's moment and allows; the redirect it ends on is then opened as a browser would,
// which hands the code to the suite, which exchanges it at the token endpoint and checks the answer.
//
// The mode has no --expected-failures option, so this script holds the baseline: every check of every scenario must
// be SUCCESS, except those listed in baseline-authorization.yml (with why); a listed check that passes is a stale entry
// and fails too. A SKIPPED code grant (no client id, say) is a failure: it would prove nothing.
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { adgateConsent } from "@adgate/conformance/consent/adgate"
import { freePort } from "../../../apps/server/test/support/serverProcess.ts"

/** The protocol dates whose scenarios the suite runs (`--spec-version`); both scenarios apply to each. */
export const protocolDates = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const
export const scenarios = ["authorization-server-metadata-endpoint", "authorization-code-grant"] as const

/** The suite waits 5 minutes for its callback; a run without it is stuck, so it is ended well after that. */
const runTimeoutMs = 7 * 60_000
/** The suite's callback answers at once; a port that does not is not the suite's. */
const callbackTimeoutMs = 30_000

interface Check {
  readonly id: string
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO"
  readonly errorMessage?: string
}

/** `<date>:<scenario>:<check-id>` lines of the baseline file (comments after `#`). */
export const readBaseline = (path: string): ReadonlySet<string> =>
  new Set(readFileSync(path, "utf8").split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => line.startsWith("- "))
    .map((line) => line.slice(2).trim()))

/** A public client registered as any MCP host would (RFC 7591), with the suite's callback as its redirect URI. */
const registerClient = async (origin: string, redirectUri: string): Promise<string> => {
  const answer = await fetch(new URL("/oauth/register", origin), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "MCP conformance suite (authorization mode)", redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"]
    })
  })
  const body = await answer.json() as { readonly client_id?: string }
  if (answer.status !== 201 || typeof body.client_id !== "string") throw new Error(`registration answered ${answer.status}: ${JSON.stringify(body)}`)
  return body.client_id
}

/** Every checks.json the suite wrote under `dir`, by scenario (its folder name starts with the scenario's). */
const checksIn = (dir: string): Map<string, ReadonlyArray<Check>> => {
  const found = new Map<string, ReadonlyArray<Check>>()
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith("checks.json")) continue
    const scenario = scenarios.find((s) => entry.includes(s))
    if (scenario !== undefined) found.set(scenario, JSON.parse(readFileSync(join(dir, entry), "utf8")) as ReadonlyArray<Check>)
  }
  return found
}

interface RunOptions {
  readonly cli: string
  readonly origin: string
  readonly person: { readonly email: string; readonly password: string }
  readonly date: (typeof protocolDates)[number]
  readonly baseline: ReadonlySet<string>
  /** Chooses the suite's callback port; default: one the system says is free. */
  readonly callbackPort?: () => Promise<number>
}

/**
 * Runs the suite's authorization mode for one protocol date against `origin`, approving as `person`. Answers the
 * problems found (empty when every check passed or is in `baseline`), the suite's own output already printed. The
 * callback port is free when chosen and bound by the suite a moment later; when another process took it in between
 * (EADDRINUSE in the suite's message), the date is run once more on another port.
 */
export const runAuthorizationMode = async (options: RunOptions): Promise<ReadonlyArray<string>> => {
  const first = await runOnce(options)
  if (!first.some((problem) => problem.includes("EADDRINUSE"))) return first
  console.log(`   ${options.date}: the callback port was taken before the suite bound it; once more on another port`)
  return runOnce(options)
}

const runOnce = async (options: RunOptions): Promise<ReadonlyArray<string>> => {
  const { origin, date } = options
  const port = await (options.callbackPort ?? freePort)()
  const redirectUri = `http://127.0.0.1:${port}/callback`
  const clientId = await registerClient(origin, redirectUri)
  const consent = adgateConsent(options.person)
  const out = mkdtempSync(join(tmpdir(), "adgate-mcp-authorization-"))
  const problems: Array<string> = []
  try {
    let approval: Promise<void> | undefined
    // The code goes only to the suite: the redirect is opened once the suite said its callback server listens, and
    // only while the suite runs (it says so even when the port was taken, and then fails the grant at once and ends).
    let listening: () => void = () => {}
    let gone: (reason: Error) => void = () => {}
    const callbackListening = new Promise<void>((resolve, reject) => { listening = resolve; gone = reject })
    callbackListening.catch(() => {})
    const exit = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [
        options.cli, "authorization", "--url", origin, "--client-id", clientId, "--port", String(port),
        "--resource", new URL("/api/mcp", origin).toString(), "--spec-version", date, "--output-dir", out
      ], { stdio: ["ignore", "pipe", "inherit"], timeout: runTimeoutMs })
      let pending = ""
      child.stdout.on("data", (chunk: Buffer) => {
        process.stdout.write(chunk)
        pending += chunk.toString("utf8")
        const lines = pending.split("\n")
        pending = lines.pop() ?? ""
        for (const line of lines) {
          if (line.trim() === `Callback server started: http://127.0.0.1:${port}`) listening()
          if (!line.startsWith(`${origin}/oauth/authorize?`) || approval !== undefined) continue
          // The person's part: through adgate's pages to Allow, then the browser follows the redirect to the suite.
          approval = consent.approve(new URL(line.trim()), redirectUri).then(async (redirect) => {
            await callbackListening
            if (child.exitCode !== null || child.signalCode !== null) throw new Error("the suite ended before the redirect (its callback server did not start)")
            const arrived = await fetch(redirect, { signal: AbortSignal.timeout(callbackTimeoutMs) })
            if (arrived.status !== 200) throw new Error(`the suite's callback answered ${arrived.status}`)
            await arrived.body?.cancel()
          }).catch((error: unknown) => {
            problems.push(`${date}: approving the authorization failed: ${error instanceof Error ? error.message : String(error)}`)
            child.kill("SIGTERM")
          })
        }
      })
      child.on("exit", (status) => {
        gone(new Error("the suite ended before its callback server listened"))
        resolve(status)
      })
    })
    await approval
    if (approval === undefined) problems.push(`${date}: the suite never printed an authorization URL of ${origin}`)
    const checks = checksIn(out)
    const seen = new Set<string>()
    let excusedFailure = false
    for (const scenario of scenarios) {
      const list = checks.get(scenario)
      if (list === undefined || list.length === 0) { problems.push(`${date}: ${scenario} wrote no checks`); continue }
      for (const check of list) {
        const key = `${date}:${scenario}:${check.id}`
        seen.add(key)
        const expected = options.baseline.has(key)
        if (check.status === "SUCCESS" && expected) problems.push(`${key} passes but is in the baseline (stale entry)`)
        if (check.status === "FAILURE" && expected) excusedFailure = true
        if (check.status !== "SUCCESS" && !expected) problems.push(`${key}: ${check.status}${check.errorMessage === undefined ? "" : ` (${check.errorMessage})`}`)
      }
    }
    for (const key of options.baseline) if (key.startsWith(`${date}:`) && !seen.has(key)) problems.push(`${key} is in the baseline but the suite no longer reports it (stale entry)`)
    // The suite's own verdict must agree: it exits 1 on any FAILURE, which only the baseline may excuse, and is ended
    // by the timeout when its callback never came.
    if (exit !== 0 && !(exit === 1 && excusedFailure) && problems.length === 0) problems.push(`${date}: the suite exited ${exit ?? "on a signal (its time was up)"}`)
    return problems
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}
