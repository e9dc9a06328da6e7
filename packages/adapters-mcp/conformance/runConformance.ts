// The MCP conformance suite (@modelcontextprotocol/conformance, server mode) against a running adgate server, run by
// .ci/run: the 2025 scenarios of its latest release (0.1.16) and the 2026-07-28 requirements of its newest
// pre-release (0.2.0-alpha.12, tasks included). The suite cannot send a credential, so a small local proxy adds
// `Authorization: Bearer <API key>` to every request. Scenarios that do not apply to this server are listed, with
// the reason, in the baseline files next to this script (docs/mcp.md); any other failure fails the run.
import { spawn } from "node:child_process"
import { createServer, request as httpRequest } from "node:http"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { createApiKey } from "@adgate/core"
import { protocolDates, readBaseline, runAuthorizationMode } from "./runAuthorization.ts"
import { freshDatabase, seedWorld, startMcpTestServer } from "../test/support/mcpTestServer.ts"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..", "..")
const node = process.execPath

const database = await freshDatabase()
const server = await startMcpTestServer(database)
const world = await seedWorld(server)
const key = await server.run(createApiKey({
  workspaceId: world.paid.id, actorId: world.admin.id, name: "conformance",
  scopes: ["tools:read", "tools:write", "tools:raw", "accounts:read", "tasks:read", "tasks:write"], toolWrites: "wait"
}).pipe(Effect.map((k) => k.secret)))

// The header-adding proxy. It stands for the server as a reverse proxy with the same public name would: a Host or
// Origin naming the proxy itself is the server's own; any other (the DNS-rebinding scenario's) passes unchanged.
const target = new URL(server.origin)
const proxy = createServer((incoming, outgoing) => {
  const forwarded = httpRequest({
    host: target.hostname, port: target.port, method: incoming.method, path: incoming.url,
    headers: {
      ...incoming.headers,
      ...(incoming.headers.host === `127.0.0.1:${port}` ? { host: target.host } : {}),
      ...(incoming.headers.origin === `http://127.0.0.1:${port}` ? { origin: server.origin } : {}),
      authorization: `Bearer ${key}`
    }
  }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(outgoing)
  })
  forwarded.on("error", () => { outgoing.writeHead(502).end() })
  incoming.pipe(forwarded)
})
await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
const port = (proxy.address() as { port: number }).port
const url = `http://127.0.0.1:${port}/api/mcp`

const runs = [
  { label: "0.1.16 (2025 scenarios)", cli: join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js"), args: [], baseline: "baseline-0.1.16.yml" },
  { label: "0.2.0-alpha.12 (--requirements 2026-07-28)", cli: join(root, "node_modules/mcp-conformance-next/dist/index.js"), args: ["--requirements", "2026-07-28"], baseline: "baseline-2026-07-28.yml" }
] as const

const runCli = (command: string, args: ReadonlyArray<string>, options: { readonly stdio: "inherit"; readonly timeout: number }) =>
  new Promise<{ readonly status: number | null; readonly signal: NodeJS.Signals | null }>((resolve) => {
    const child = spawn(command, args, options)
    child.on("exit", (status, signal) => resolve({ status, signal }))
  })

let failed = false
try {
  for (const run of runs) {
    console.log(`\n== MCP conformance ${run.label} against ${url}`)
    // Asynchronously: the server and the proxy live in this process and must keep answering meanwhile.
    const result = await runCli(node, [run.cli, "server", "--url", url, ...run.args, "--expected-failures", join(here, run.baseline)], {
      stdio: "inherit", timeout: 10 * 60 * 1000
    })
    console.log(`== ${run.label}: ${result.status === 0 ? "passed" : `FAILED (exit ${result.status ?? result.signal})`}`)
    if (result.status !== 0) failed = true
  }
  const authorizationBaseline = readBaseline(join(here, "baseline-authorization.yml"))
  for (const date of protocolDates) {
    console.log(`\n== MCP conformance 0.2.0-alpha.12 authorization mode (--spec-version ${date}) against ${server.origin}`)
    const problems = await runAuthorizationMode({
      cli: runs[1].cli, origin: server.origin, person: world.admin, date, baseline: authorizationBaseline
    })
    for (const problem of problems) console.log(`   ${problem}`)
    console.log(`== authorization mode ${date}: ${problems.length === 0 ? "passed" : "FAILED"}`)
    if (problems.length > 0) failed = true
  }
} finally {
  proxy.close()
  await server.close()
  await database.drop()
}
process.exit(failed ? 1 : 0)
