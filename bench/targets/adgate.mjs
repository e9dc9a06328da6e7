// Target: adgate itself (apps/server/src/main.ts under Node 24), on PostgreSQL (a fresh bench database) or on the
// embedded PGlite (a fresh data folder). The consent is driven through the real pages in the untimed set-up:
// /signin with its CSRF token, GET /oauth/authorize, then POST /oauth/consent once the page's moment has passed.
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { attr, call, Jar, pkcePair, pool, sleep, waitUntilUp } from "../lib/http.mjs"
import { backendPids, benchDatabase, databaseUrl, dropDatabase, freshDatabase, node24, repoDir, sql, startChild, startSettingsFor } from "../lib/processes.mjs"

const redirectUri = "http://127.0.0.1:9/callback"
const scope = "tools:read tools:write"
const adminEmail = "bench@example.com"
const adminPassword = "bench-password-not-secret-1"
/** Allow access is refused within this long of the page opening (docs/decisions.md, consent page). */
const consentMomentMs = 1_000

// BENCH_ADGATE_NODE_ARGS adds flags for an experiment (space-separated, e.g. "--max-old-space-size=128").
const experimentArgs = (process.env.BENCH_ADGATE_NODE_ARGS ?? "").split(" ").filter((a) => a !== "")

const mainScript = "apps/server/src/main.ts"

export const adgateTarget = ({ store, port, database = benchDatabase("adgate_bench_adgate"), nodeArgs = [], onDatabase = async () => {}, rateLimits = "on" }) => {
  const base = `http://127.0.0.1:${port}`
  // BENCH_ADGATE_SCRIPT runs another entry over the same composition (round 7b: servers/tokenFloor.mjs, the token
  // call behind a bare node:http handler), read when the target is made (ab.mjs sets a variant's environment then).
  const script = process.env.BENCH_ADGATE_SCRIPT ?? mainScript
  // Another entry (tokenFloor.mjs) starts no background work: nothing it leaves would ever settle.
  const runsBackground = process.env.BENCH_ADGATE_SCRIPT === undefined
  const resource = `${base}/api/mcp`
  let server
  let dataDir
  let clientId
  const jar = new Jar()
  /** `npm run adgate -- …` on the bench database (the server's environment, as the README says to run it). */
  const cli = (args) =>
    new Promise((resolve, reject) => {
      execFile(node24, ["apps/server/src/cli.ts", ...args], { cwd: repoDir, env: { ...process.env, DATABASE_URL: store === "pg" ? databaseUrl(database) : "", ADGATE_DATA_DIR: dataDir } },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`adgate ${args.slice(0, 2).join(" ")}: ${stderr.slice(0, 300)}`))))
    })
  const name = store === "pg" ? "adgate-pg" : "adgate-pglite"
  const discoveryPath = "/.well-known/oauth-authorization-server"
  /** Starts the server on the target's database (or data folder) and waits until it answers. */
  const launch = async () => {
    const start = startSettingsFor(store)
    server = startChild(name, [...start.flags, ...experimentArgs, ...nodeArgs, script], {
      // As `npm start` sets them: at most two glibc malloc arenas (round 5), freed memory above 128 KiB returned (round 8).
      ...start.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      ADGATE_DATA_DIR: dataDir,
      ADGATE_ADMIN_EMAIL: adminEmail,
      ADGATE_ADMIN_PASSWORD: adminPassword,
      ADGATE_CREDENTIALS_KEY: "",
      DATABASE_URL: store === "pg" ? databaseUrl(database) : "",
      // Off only for runs with the tool-call scenarios (d, e, f-d): their per-credential limits would measure the limiter.
      ADGATE_RATE_LIMITS: rateLimits
    })
    await waitUntilUp(`${base}${discoveryPath}`, 90_000, server.alive)
  }
  return {
    name,
    kind: "adgate",
    base,
    database: store === "pg" ? database : null,
    discoveryPath,
    tokenPath: "/oauth/token",
    // A route with no work of its own (the token endpoint's CORS preflight, a constant 204): scenario t.
    trivialPath: "/oauth/token",
    resource,
    get pid() { return server.pid },
    dbPids: store === "pg" ? () => backendPids(database) : async () => [],
    /**
     * Waits until the work requests left behind is done: every outbox event handled by every reader (the audit
     * entries, the admins' mail queued) and every queued mail sent. A code exchange's follow-up runs in the same
     * process after its answer (the readers wake every 5 s), so a window that ends before it would leave its cost out
     * of the exchange's figures (scenario b charges it; bench/README.md, round 10). PostgreSQL only: the embedded
     * database is the server's own.
     */
    settle: store === "pg" && runsBackground ? async (timeoutMs = 120_000) => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const [row] = await sql(database, `SELECT (SELECT count(*) FROM event_outbox WHERE done_at IS NULL)
          + (SELECT count(*) FROM mail_outbox WHERE sent_at IS NULL) AS left`)
        if (Number(row.left) === 0) return
        if (Date.now() > deadline) throw new Error(`${name}: ${row.left} outbox events or mails still waiting after ${timeoutMs / 1000} s`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    } : undefined,
    async start() {
      dataDir = mkdtempSync(join(tmpdir(), "adgate-bench-"))
      if (store === "pg") {
        await freshDatabase(database)
        await onDatabase(database)
      }
      await launch()
      // Dynamic registration of one public client (RFC 7591), as an MCP host does.
      const registered = await call(`${base}/oauth/register`, {
        method: "POST",
        json: { client_name: "bench", redirect_uris: [redirectUri], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }
      })
      if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`)
      clientId = JSON.parse(registered.text).client_id
      // Sign in once through the form (the sign-in limit is per address, so one session serves every consent).
      const form = await call(`${base}/signin?return_to=/`, { jar })
      const signedIn = await call(`${base}/signin`, {
        method: "POST", jar, headers: { origin: base },
        form: { csrf_token: attr(form.text, "csrf_token"), return_to: "/", email: adminEmail, password: adminPassword }
      })
      if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`)
    },
    /** `count` codes, each from its own consent through the real pages; pages are opened, then allowed after the moment. */
    async mintCodes(count) {
      const opened = await pool(Array.from({ length: count }), 8, async () => {
        const { verifier, challenge } = pkcePair()
        const state = pkcePair().verifier.slice(0, 16)
        const q = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state, scope, resource })
        const page = await call(`${base}/oauth/authorize?${q}`, { jar })
        if (page.status !== 200) throw new Error(`authorize: ${page.status} ${page.text.slice(0, 200)}`)
        const scopes = [...page.text.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1])
        return { verifier, openedAt: Date.now(), page: attr(page.text, "page"), csrf: attr(page.text, "csrf_token"), scopes }
      })
      const codes = await pool(opened, 8, async (o) => {
        const wait = o.openedAt + consentMomentMs + 50 - Date.now()
        if (wait > 0) await sleep(wait)
        const form = new URLSearchParams({ page: o.page, csrf_token: o.csrf })
        for (const s of o.scopes) form.append("scope", s)
        form.append("platforms", "all")
        form.append("write_mode", "wait")
        form.append("action", "allow")
        const decided = await call(`${base}/oauth/consent`, { method: "POST", jar, headers: { origin: base }, form })
        const location = decided.headers.location
        const code = location === undefined ? null : new URL(location).searchParams.get("code")
        if (decided.status !== 303 || code === null) throw new Error(`consent: ${decided.status} ${location ?? decided.text.slice(0, 300)}`)
        return { code, verifier: o.verifier }
      })
      return codes
    },
    /**
     * Tool calls (d, e): the sandbox read tool of the demo workspace (paid, four sandbox platforms connected on first
     * start) and its arguments, called with an API key of the bench admin made by the CLI, as an operator does.
     * On PGlite the CLI cannot open the embedded database while the server holds it: the server is stopped for the
     * two CLI commands and started again on the same data folder (untimed; the load starts after it answers).
     */
    tool: { name: "gads__list_campaigns", arguments: { accountId: "3842019576" } },
    async apiKey(scopes) {
      if (store !== "pg") await server.stop()
      // Every call is charged a credit (the demo's balance runs out in seconds): a balance no run exhausts.
      await cli(["credits", "set", "Demo", "1000000000"])
      const stdout = await cli(["apikey", "create", "Demo", adminEmail, "bench", "--scopes", scopes.join(",")])
      if (store !== "pg") await launch()
      const key = /^key: (\S+)/m.exec(stdout)?.[1]
      if (key === undefined) throw new Error(`apikey create printed no key: ${stdout.slice(0, 200)}`)
      return key
    },
    exchangeForm: ({ code, verifier }) =>
      new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource }).toString(),
    refreshForm: (refreshToken) =>
      new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, resource }).toString(),
    async stop() {
      await server?.stop()
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
      if (store === "pg" && !process.env.BENCH_KEEP_DB) await dropDatabase(database)
    }
  }
}
