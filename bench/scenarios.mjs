// The scenarios of issue 11 (the suite). Each takes a started target and returns the driver's figures; the set-up
// (consents, code exchanges, minting codes) is untimed. Scenarios that need work from other issues are listed with
// what they wait for.
import { request } from "undici"
import { round, runLoad } from "./lib/driver.mjs"
import { cpuMs, snapshot, spentMs } from "./lib/procstat.mjs"
import { seedApiKeysAndUsage, seedConnections } from "./lib/seed.mjs"

const formHeaders = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }

/** POST a form to the token endpoint; ok when 200 with the expected fields. */
const postToken = async (target, agent, body) => {
  const response = await request(`${target.base}${target.tokenPath}`, { method: "POST", headers: formHeaders, body, dispatcher: agent })
  const text = await response.body.text()
  if (response.statusCode !== 200) return { ok: false, why: `${response.statusCode} ${/"error":"([^"]+)"/.exec(text)?.[1] ?? ""}`.trim() }
  return { ok: true, json: JSON.parse(text) }
}

/** Exchanges codes into refresh tokens (untimed set-up), one chain per code. */
const chainsFor = async (target, agent, count) => {
  const codes = await target.mintCodes(count)
  const chains = []
  for (const code of codes) {
    const answer = await postToken(target, agent, target.exchangeForm(code))
    if (!answer.ok || typeof answer.json.refresh_token !== "string") throw new Error(`${target.name}: set-up exchange failed: ${answer.why ?? "no refresh_token"}`)
    chains.push(answer.json.refresh_token)
  }
  // The set-up exchanges' own follow-up (adgate: 64 audit entries and mails) is done before any window, so that it is
  // not measured as the first window's tail (until round 11 it landed in the first a16 window, ~5 s after the set-up).
  await target.settle?.()
  return chains
}

const common = (target, options) => ({
  serverPid: target.pid,
  dbPids: target.dbPids,
  onWarm: options.onWarm,
  durationMs: options.durationMs
})

/** (a) refresh_token grant with rotation: 64 independent chains, each using its latest refresh token. */
const refresh = (concurrency) => ({
  id: `a${concurrency}`,
  group: "a",
  title: `refresh rotation, 64 chains, concurrency ${concurrency}`,
  applies: (target) => target.refreshForm !== undefined,
  async run(target, agent, options, shared) {
    shared.chains ??= await chainsFor(target, agent, 64)
    const free = shared.chains.map((token, i) => i)
    const send = async () => {
      const i = free.pop()
      if (i === undefined) return { ok: false, why: "no free chain" }
      try {
        const answer = await postToken(target, agent, target.refreshForm(shared.chains[i]))
        if (answer.ok) {
          if (typeof answer.json.refresh_token !== "string" || typeof answer.json.access_token !== "string") return { ok: false, why: "no rotated pair" }
          shared.chains[i] = answer.json.refresh_token
        }
        return answer
      } finally {
        free.unshift(i)
      }
    }
    return runLoad({ send, concurrency, warmupMs: options.warmupMs, ...common(target, options) })
  }
})

/**
 * `figures` with the CPU of the exchanges' follow-up added (adgate: each exchange's audit entry and admins' mail, made
 * by the outbox readers and the mail sender after the answer): the server's and the database's CPU from the window's
 * end until the target has settled, charged to the window's requests in their share of the requests whose follow-up
 * it is (the warm-up's too). A target with nothing left to do after its answers (oidc-provider) has no `settle`.
 */
const withFollowUp = async (target, figures, warmupRequests) => {
  const dbBefore = snapshot(await target.dbPids())
  const serverBefore = cpuMs(target.pid)
  const t0 = performance.now()
  await target.settle()
  const serverAfter = cpuMs(target.pid)
  const dbMs = spentMs(dbBefore, snapshot([...new Set([...(await target.dbPids()), ...dbBefore.keys()])]))
  const done = figures.requests + figures.errors
  // A figure the window could not measure (the server gone, no request answered) stays unmeasured.
  const perRequest = (ms) => ms === null || done === 0 ? null : (ms * (figures.requests / (figures.requests + warmupRequests))) / done
  const server = perRequest(serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore)
  const db = perRequest(dbMs)
  const plus = (window, followUp) => window === null || followUp === null ? null : round(window + followUp, 3)
  return {
    ...figures,
    serverCpuMsPerReq: plus(figures.serverCpuMsPerReq, server),
    dbCpuMsPerReq: plus(figures.dbCpuMsPerReq, db),
    followUp: { seconds: round((performance.now() - t0) / 1000, 3), serverCpuMsPerReq: round(server, 3), dbCpuMsPerReq: round(db, 3) }
  }
}

/** (b) authorization code + PKCE exchange of codes minted in set-up (through the consent pages). */
const exchange = {
  id: "b",
  group: "b",
  title: "code + PKCE exchange of pre-minted codes, concurrency 16",
  applies: (target) => target.exchangeForm !== undefined,
  async run(target, agent, options) {
    // Enough codes for several seconds at each server's pace: minting through adgate's pages costs a consent each.
    const count = options.codes ?? (target.kind === "adgate" ? 1500 : 5000)
    const minting = Date.now()
    const codes = await target.mintCodes(count)
    const mintSeconds = Math.round((Date.now() - minting) / 100) / 10
    const send = async () => {
      const code = codes.pop()
      if (code === undefined) return null
      const answer = await postToken(target, agent, target.exchangeForm(code))
      if (answer.ok && typeof answer.json.refresh_token !== "string") return { ok: false, why: "no refresh_token" }
      return answer
    }
    // The consents' own follow-up is done before the load, so that what is settled after it is the exchanges'.
    await target.settle?.()
    // Warm-up by count (a tenth of the codes), so that a fast server does not use them all before the measure.
    const warmupRequests = Math.ceil(count / 10)
    const figures = await runLoad({ send, concurrency: 16, warmupMs: options.warmupMs, warmupRequests, ...common(target, options) })
    return { codes: count, mintSeconds, ...(target.settle === undefined ? figures : await withFollowUp(target, figures, warmupRequests)) }
  }
}

/**
 * A request with a constant answer, at concurrency 16 for at most 5 s: the HTTP floor of a server (`pathOf` the
 * target's path for it; the scenario does not apply to a target without one).
 */
const constantAnswer = ({ id, title, method, status, pathOf }) => ({
  id,
  group: id,
  title,
  applies: (target) => pathOf(target) !== undefined,
  async run(target, agent, options) {
    const send = async () => {
      const response = await request(`${target.base}${pathOf(target)}`, { method, dispatcher: agent })
      await response.body.text()
      return response.statusCode === status ? true : { ok: false, why: String(response.statusCode) }
    }
    return runLoad({ send, concurrency: 16, warmupMs: options.warmupMs, ...common(target, { ...options, durationMs: Math.min(options.durationMs, 5_000) }) })
  }
})

/** (c) discovery GET: the HTTP floor of each server. */
const discovery = constantAnswer({
  id: "c", title: "discovery GET, concurrency 16", method: "GET", status: 200, pathOf: (target) => target.discoveryPath
})

/** (t) a trivial route (round 7b): OPTIONS of the token endpoint, a constant 204 through the whole HTTP pipeline. */
const trivial = constantAnswer({
  id: "t", title: "OPTIONS /oauth/token (CORS preflight, constant 204), concurrency 16", method: "OPTIONS", status: 204,
  pathOf: (target) => target.trivialPath
})

/** What the bare SDK server's `echo` answers to `{ text: "hello" }`. */
const echoed = '"text":"hello"'

/**
 * A caller of the bare SDK server's `echo` tool at `path`, shared by the two MCP floors: each call is one JSON-RPC
 * `tools/call` POST with the next id and `extra` beside the tool's name and arguments (the 2026-07-28 floor's `_meta`).
 */
const echoCaller = (target, agent, path, headers, extra) => {
  let id = 0
  return async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: { text: "hello" }, ...extra } })
    const response = await request(`${target.base}${path}`, { method: "POST", headers, body, dispatcher: agent })
    return { status: response.statusCode, contentType: response.headers["content-type"] ?? "", text: await response.body.text() }
  }
}

/** (e, floor) the bare MCP SDK v2 server: tools/call of its echo tool, protocol 2026-07-28, JSON answers. */
const mcpFloor = {
  id: "e-floor",
  group: "e",
  title: "MCP tools/call (bare SDK floor: echo, no auth, no database), concurrency 16",
  applies: (target) => target.mcpPath !== undefined,
  async run(target, agent, options) {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "echo"
    }
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" } }
    const callEcho = echoCaller(target, agent, target.mcpPath, headers, { _meta: meta })
    const send = async () => {
      const answer = await callEcho()
      return answer.status === 200 && answer.text.includes(echoed) ? true : { ok: false, why: `${answer.status}` }
    }
    return runLoad({ send, concurrency: 16, warmupMs: options.warmupMs, ...common(target, options) })
  }
}

/**
 * (e, floor on e's protocol) the same bare SDK server's `tools/call` of `echo` sent exactly as (e) sends adgate's:
 * one plain JSON-RPC POST, `MCP-Protocol-Version: 2025-11-25`, no `_meta` envelope, no session, no initialize; the
 * server answers it through a stateless transport per request in JSON (servers/mcpFloor.mjs, `/mcp-2025`). The
 * like-for-like floor of (e); `e-floor` stays as the 2026-07-28 floor.
 */
const mcpFloor2025 = {
  id: "e-floor-2025",
  group: "e",
  title: "MCP tools/call (bare SDK floor, protocol 2025-11-25 as e sends it: echo, no auth, no database), concurrency 16",
  applies: (target) => target.mcpLegacyPath !== undefined,
  async run(target, agent, options) {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }
    const callEcho = echoCaller(target, agent, target.mcpLegacyPath, headers, {})
    const check = async () => {
      const { status, contentType, text } = await callEcho()
      if (status !== 200 || !contentType.startsWith("application/json")) return { ok: false, why: `${status} ${text.slice(0, 120)}` }
      return text.includes(echoed) ? true : { ok: false, why: `rpc ${text.slice(0, 120)}` }
    }
    return checkedLoad("e-floor-2025", check, target, options)
  }
}

/** One set-up call of `check` (a failure stops the scenario with its reason), then the load of it at concurrency 16. */
const checkedLoad = async (id, check, target, options) => {
  const first = await check()
  if (first !== true) throw new Error(`${id}: set-up call failed: ${first.why}`)
  return runLoad({ send: check, concurrency: 16, warmupMs: options.warmupMs, ...common(target, options) })
}

/** (d) REST `POST /api/v1/tools/{name}` of the sandbox read tool with a tools:read API key; ok when 200 with a result. */
const restTool = {
  id: "d",
  group: "d",
  title: "REST POST /api/v1/tools/{name} of a sandbox read tool (API key, tools:read), concurrency 16",
  applies: (target) => target.tool !== undefined,
  async run(target, agent, options, shared) {
    shared.toolKey ??= await target.apiKey(["tools:read"])
    const headers = { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${shared.toolKey}` }
    const body = JSON.stringify(target.tool.arguments)
    const url = `${target.base}/api/v1/tools/${target.tool.name}`
    const check = async () => {
      const response = await request(url, { method: "POST", headers, body, dispatcher: agent })
      const text = await response.body.text()
      return response.statusCode === 200 && text.includes('"result"') ? true : { ok: false, why: `${response.statusCode} ${text.slice(0, 120)}` }
    }
    return checkedLoad("d", check, target, options)
  }
}

/**
 * (e) adgate MCP `tools/call` of the same tool: one JSON-RPC POST per call, stateless and initialize-free as a
 * 2025-11-25 client sends it after its handshake (`MCP-Protocol-Version` header, no session), JSON answers.
 */
const mcpTool = {
  id: "e",
  group: "e",
  title: "adgate MCP tools/call of the same tool (API key, tools:read, protocol 2025-11-25), concurrency 16",
  applies: (target) => target.tool !== undefined,
  async run(target, agent, options, shared) {
    shared.toolKey ??= await target.apiKey(["tools:read"])
    let id = 0
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      authorization: `Bearer ${shared.toolKey}`
    }
    const check = async () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: target.tool.name, arguments: target.tool.arguments } })
      const response = await request(`${target.base}/api/mcp`, { method: "POST", headers, body, dispatcher: agent })
      const text = await response.body.text()
      if (response.statusCode !== 200) return { ok: false, why: `${response.statusCode} ${text.slice(0, 120)}` }
      const answer = JSON.parse(text)
      return answer.result !== undefined && answer.result.isError !== true ? true : { ok: false, why: `rpc ${text.slice(0, 120)}` }
    }
    return checkedLoad("e", check, target, options)
  }
}


export const scenarios = [
  refresh(16),
  refresh(64),
  exchange,
  discovery,
  trivial,
  restTool,
  mcpTool,
  mcpFloor,
  mcpFloor2025
]

/**
 * (f) growth: after seeding N stored connections and access tokens directly in the database (10^4, 10^5, and 10^6
 * with --growth), f-a runs the refresh scenario at concurrency 16 and f-d the REST tool call (after also seeding N API
 * keys and N tool-usage rows). adgate on PostgreSQL only: PGlite lives inside the server. Both run level by level
 * (seed to N, f-a, f-d, then the next N) whichever is chosen: seeding only adds rows, so running every f-a level
 * first would leave f-d's lower levels measured over the highest level's connections.
 */
const growthApplies = (target) => target.kind === "adgate" && target.database !== null
const growthLevels = async (target, agent, options, shared, self) => {
  if (shared.growthLevels !== undefined) return shared.growthLevels
  // run.mjs says which scenarios the run has chosen; a caller that does not (diagnose.mjs) gets the one it ran.
  const chosen = options.chosen ?? [self]
  const withRefresh = chosen.includes("f-a")
  const withTools = chosen.includes("f-d") && target.tool !== undefined
  const a16 = scenarios.find((s) => s.id === "a16")
  const d = scenarios.find((s) => s.id === "d")
  // The chains first: the seeded connections are copies of one made through the pages.
  shared.chains ??= await chainsFor(target, agent, 64)
  if (withTools) shared.toolKey ??= await target.apiKey(["tools:read"])
  const levels = []
  for (const n of options.growth) {
    const started = Date.now()
    await seedConnections(target.database, n)
    if (withTools) await seedApiKeysAndUsage(target.database, n)
    const seedSeconds = Math.round((Date.now() - started) / 100) / 10
    if (withRefresh) levels.push({ scenario: `f-a16@${n}`, seededConnections: n, seedSeconds, ...(await a16.run(target, agent, options, shared)) })
    if (withTools) levels.push({ scenario: `f-d@${n}`, seededConnections: n, seedSeconds: withRefresh ? 0 : seedSeconds, ...(await d.run(target, agent, options, shared)) })
  }
  shared.growthLevels = levels
  return levels
}

const growth = {
  id: "f-a",
  group: "f",
  title: "growth: refresh rotation (concurrency 16) at N stored connections",
  applies: growthApplies,
  run: async (target, agent, options, shared) => ({ levels: await growthLevels(target, agent, options, shared, "f-a") })
}
scenarios.push(growth)

const toolGrowth = {
  id: "f-d",
  group: "f",
  title: "growth: REST tool call (concurrency 16) at N stored connections, API keys and usage rows",
  applies: (target) => growthApplies(target) && target.tool !== undefined,
  // With f-a chosen too, its run has measured f-d's levels already (and printed them).
  run: async (target, agent, options, shared) => {
    const measured = shared.growthLevels !== undefined
    const levels = await growthLevels(target, agent, options, shared, "f-d")
    return { levels: measured ? [] : levels }
  }
}
scenarios.push(toolGrowth)
