// What the server process loads (bench/README.md round 5): importing main.ts brings in the whole module graph
// of `npm start` without starting it (import.meta.main is false), in a fresh Node process that records every module
// loaded. Libraries the server never uses on its own stay out: the `redis` client that @effect/platform-node's barrel
// would pull in (~650 modules), nodemailer, which is imported only when SMTP_URL is set, and the OpenTelemetry SDK,
// imported only when an OTLP endpoint is set (tracing.ts).
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { root } from "./support/serverProcess.ts"

const recordAndImport = `
import { registerHooks } from "node:module"
const loaded = []
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context) } })
await import(${JSON.stringify(join(root, "apps/server/src/main.ts"))})
process.stdout.write(JSON.stringify(loaded))
`

describe("the server's module graph", () => {
  it("loads neither the redis client, nodemailer nor OpenTelemetry, and does load the HTTP server", () => {
    const loaded: ReadonlyArray<string> = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", recordAndImport], { cwd: root, encoding: "utf8", timeout: 60_000 })
    )
    const from = (name: string) => loaded.filter((url) => url.includes(`/node_modules/${name}/`))
    assert.isAbove(from("@effect/platform-node").length, 0)
    assert.deepStrictEqual(from("@redis/client"), [])
    assert.deepStrictEqual(from("redis"), [])
    assert.deepStrictEqual(from("nodemailer"), [])
    // The API package alone may load (prom-client looks for it); the SDK, its exporter and Effect's integration do not.
    assert.deepStrictEqual(loaded.filter((url) => /\/node_modules\/@(opentelemetry\/(?!api\/)|effect\/opentelemetry\/)/.test(url)), [])
  }, 90_000)
})
