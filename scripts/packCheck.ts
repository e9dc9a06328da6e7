// `npm run check:pack` (in .ci/run): the library as a host outside this workspace gets it. Builds the packages
// (scripts/build.ts), packs each dist/ with `npm pack`, installs the tarballs with their peers into a fresh folder
// under the system's temporary directory, typechecks a TypeScript host against the installed .d.ts, and runs a
// plain-JavaScript host (no TypeScript, no Node flag) on Node 20 (this machine's `node`, or NODE20), on Node 22 (the
// `node` npm package at 22, installed into the temporary folder, or NODE22) and on Node 24 (the workspace's `node` dev
// dependency): it imports `adgate` and `adgate/server`,
// answers discovery through `fetch` and `/health` through `nodeListener` on PGlite in memory, starts and stops.
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { build, libraryPackages, root } from "./build.ts"

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(command, [...args], { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })

/** The host: plain JavaScript, as a project without TypeScript writes it. */
const hostJs = `
import { createAdgate, adgatePaths } from "adgate"
import { serveHttp } from "adgate/server"
import { createServer } from "node:http"

if (typeof serveHttp !== "function") throw new Error("adgate/server did not load")
const adgate = createAdgate({ baseUrl: "https://host.example", database: { memory: true }, log: "none" })
const discovery = await adgate.fetch(new Request("https://host.example/.well-known/oauth-authorization-server"))
const metadata = await discovery.json()
if (discovery.status !== 200 || metadata.issuer !== "https://host.example") throw new Error("discovery: " + discovery.status)
await adgate.start()
const server = createServer((req, res) => adgate.owns(new URL(req.url, "http://x").pathname) ? adgate.nodeListener(req, res) : res.writeHead(404).end())
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const health = await fetch("http://127.0.0.1:" + server.address().port + "/health")
if (health.status !== 200) throw new Error("health: " + health.status)
await new Promise((resolve) => server.close(resolve))
await adgate.stop()
console.log(JSON.stringify({ node: process.version, issuer: metadata.issuer, paths: adgatePaths.length, health: health.status }))
`

/** The same host in TypeScript, typechecked against the installed declarations. */
const hostTs = `
import { type Adgate, createAdgate, type HostPlatforms, type HostSignInOptions } from "adgate"
const platforms: HostPlatforms = { families: [], tools: [], accounts: async () => [], preview: async () => { throw new Error("none") }, execute: async () => ({ providerStatus: 200, body: null }) }
const signIn: HostSignInOptions = { current: async () => null, signInUrl: (to) => "/login?next=" + encodeURIComponent(to), signOutUrl: "/logout" }
const adgate: Adgate = createAdgate({ baseUrl: "https://host.example", database: { postgres: "postgres://localhost/x" }, platforms, signIn })
const answer: Promise<Response> = adgate.fetch(new Request("https://host.example/health"))
void answer
`

/** A Node 22 binary from the `node` npm package, installed into `work`. */
const node22 = (work: string) => {
  const folder = join(work, "node22")
  mkdirSync(folder)
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "node22", private: true }))
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", "node@22"], folder)
  return join(folder, "node_modules", "node", "bin", "node")
}

export const packCheck = () => {
  build()
  const work = mkdtempSync(join(tmpdir(), "adgate-pack-"))
  try {
    const packs = join(work, "packs")
    mkdirSync(packs)
    for (const dir of libraryPackages) run("npm", ["pack", "--silent", "--pack-destination", packs, join(root, "packages", dir, "dist")], root)
    const tarballs = readdirSync(packs).filter((f) => f.endsWith(".tgz")).map((f) => join(packs, f))
    const host = join(work, "host")
    mkdirSync(host)
    writeFileSync(join(host, "package.json"), JSON.stringify({ name: "a-host", private: true, type: "module" }, null, 2))
    // The peers at the versions adgate is built and tested with (docs/embedding.md, Dependencies).
    const peers = ["effect@4.1.0", "@effect/sql-pg@4.0.5", "@effect/platform-node@4.1.0", "@electric-sql/pglite@0.5.16", "@types/node@24.19.2"]
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...tarballs, ...peers], host)
    writeFileSync(join(host, "host.js"), hostJs)
    writeFileSync(join(host, "host.ts"), hostTs)
    writeFileSync(join(host, "tsconfig.json"), JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, lib: ["ES2022", "DOM"], types: ["node"], skipLibCheck: false }
    }, null, 2))
    run(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], host)
    process.stdout.write("the TypeScript host typechecks against the installed declarations\n")
    const nodes: Array<readonly [string, string]> = [
      ["Node 20", process.env["NODE20"] ?? "/usr/bin/node"],
      ["Node 22", process.env["NODE22"] ?? node22(work)],
      ["Node 24", join(root, "node_modules", "node", "bin", "node")]
    ]
    for (const [label, node] of nodes) {
      // A clean environment for the host: no NODE_OPTIONS, no type stripping of ours.
      const answer = run(node, ["host.js"], host, { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? work })
      process.stdout.write(`${label}: ${answer.trim()}\n`)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) packCheck()
