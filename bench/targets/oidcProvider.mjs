// Target: the reference server, oidc-provider 9 (servers/oidcServer.mjs) with its in-memory adapter or with
// servers/PostgresAdapter.mjs on a fresh bench database. The person's steps are driven through its interaction pages
// (devInteractions: the login form, then the consent form), one browser (cookie jar) per chain, so every chain has
// its own session and grant.
import { call, Jar, pkcePair, pool } from "../lib/http.mjs"
import { backendPids, benchDatabase, databaseUrl, dropDatabase, freshDatabase, startChild } from "../lib/processes.mjs"
import { waitUntilUp } from "../lib/http.mjs"

const redirectUri = "http://127.0.0.1:9/callback"
const clientId = "bench"
const scope = "tools:read tools:write"

export const oidcProviderTarget = ({ store, port, database = benchDatabase(store === "pg-tuned" ? "adgate_bench_oidc_tuned" : "adgate_bench_oidc"), onDatabase = async () => {} }) => {
  const onPg = store === "pg" || store === "pg-tuned"
  const base = `http://127.0.0.1:${port}`
  const resource = `${base}/api/mcp`
  let server
  const jars = []

  /** One authorization through the pages: returns the code's redirect. */
  const authorize = async (jar) => {
    const { verifier, challenge } = pkcePair()
    const q = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state: "s", scope, resource })
    let answer = await call(`${base}/auth?${q}`, { jar })
    for (let step = 0; step < 10; step++) {
      const location = answer.headers.location
      if (answer.status >= 300 && answer.status < 400 && location !== undefined) {
        const next = new URL(location, base)
        if (next.origin !== base) {
          const code = next.searchParams.get("code")
          if (code === null) throw new Error(`oidc-provider authorize: ${location}`)
          return { code, verifier }
        }
        answer = await call(next.toString(), { jar })
        continue
      }
      if (answer.status === 200) {
        // An interaction page: its form posts to itself with a hidden prompt (login or consent).
        const action = /<form[^>]*action="([^"]+)"/.exec(answer.text)?.[1]
        const prompt = /name="prompt" value="([^"]+)"/.exec(answer.text)?.[1]
        if (action === undefined || prompt === undefined) throw new Error(`oidc-provider page without a form: ${answer.text.slice(0, 200)}`)
        const form = prompt === "login" ? { prompt, login: `person-${jars.indexOf(jar)}`, password: "x" } : { prompt }
        answer = await call(new URL(action.replace(/&amp;/g, "&"), base).toString(), { method: "POST", jar, form })
        continue
      }
      throw new Error(`oidc-provider authorize: ${answer.status} ${answer.text.slice(0, 200)}`)
    }
    throw new Error("oidc-provider authorize: too many steps")
  }

  return {
    name: store === "pg" ? "oidc-provider-pg" : store === "pg-tuned" ? "oidc-provider-pg-tuned" : "oidc-provider-memory",
    kind: "reference",
    base,
    database: onPg ? database : null,
    discoveryPath: "/.well-known/openid-configuration",
    tokenPath: "/token",
    resource,
    get pid() { return server.pid },
    dbPids: onPg ? () => backendPids(database) : async () => [],
    async start() {
      if (onPg) {
        await freshDatabase(database)
        await onDatabase(database)
      }
      server = startChild(this.name, ["bench/servers/oidcServer.mjs", String(port), store, onPg ? databaseUrl(database) : ""], { NODE_ENV: "production" })
      await waitUntilUp(`${base}${this.discoveryPath}`, 60_000, server.alive)
    },
    /** Codes for `count` authorizations: the first of each person signs in and consents; later ones reuse the grant. */
    async mintCodes(count, { people = Math.min(count, 64) } = {}) {
      while (jars.length < people) jars.push(new Jar())
      return pool(Array.from({ length: count }), 8, (_, i) => authorize(jars[i % people]))
    },
    exchangeForm: ({ code, verifier }) =>
      new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource }).toString(),
    refreshForm: (refreshToken) =>
      new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, resource }).toString(),
    async stop() {
      await server?.stop()
      if (onPg && !process.env.BENCH_KEEP_DB) await dropDatabase(database)
    }
  }
}
