// The SQL store contract and race suites, unchanged, through Debian's PgBouncer in transaction pooling mode (a `.ci/run`
// step; `npx node test/scaleout/runThroughPgbouncer.ts`). PgBouncer is started in front of DATABASE_URL's server
// with the settings of docs/operations.md, the suites run with DATABASE_URL pointing at it and
// ADGATE_DATABASE_PREPARED_STATEMENTS=off (what a deployment behind PgBouncer sets), and PgBouncer is stopped. The
// exit code is vitest's: the CI run fails when a suite fails here. Bounded: the suites are killed after 10 minutes.
import { spawn } from "node:child_process"
import { Infrastructure, databaseUrl, scaleOutAvailable } from "./support/infrastructure.ts"

/** The suites whose databases come from packages/adapters-sql/test/databases.ts (which reads the same setting). */
export const suitesThroughPgbouncer = [
  "packages/adapters-sql/test/contracts.test.ts",
  "packages/adapters-sql/test/races.test.ts",
  "packages/adapters-sql/test/pipelineRaces.test.ts",
  "packages/adapters-sql/test/pipelineLimits.test.ts",
  "packages/adapters-sql/test/readers.test.ts",
  "packages/adapters-sql/test/withdrawals.test.ts"
]

const main = async () => {
  if (!scaleOutAvailable) {
    console.log("through PgBouncer: DATABASE_URL, PgBouncer or HAProxy missing")
    return 1
  }
  const infra = new Infrastructure()
  try {
    const server = new URL(databaseUrl)
    const bouncer = await infra.pgbouncer({ host: server.hostname, port: Number(server.port || 5432) })
    const url = bouncer.url(server.pathname.slice(1))
    console.log(`through PgBouncer (transaction mode) on port ${bouncer.port}: ${suitesThroughPgbouncer.length} suites, PostgreSQL parts only`)
    const vitest = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...suitesThroughPgbouncer, "-t", "PostgreSQL"], {
      stdio: "inherit",
      // SCALEOUT_PREPARED_STATEMENTS=on shows the suites failing without the setting.
      env: { ...process.env, DATABASE_URL: url, ADGATE_DATABASE_PREPARED_STATEMENTS: process.env["SCALEOUT_PREPARED_STATEMENTS"] ?? "off" }
    })
    const timer = setTimeout(() => vitest.kill("SIGKILL"), 10 * 60_000)
    const code = await new Promise<number>((resolve) => vitest.once("exit", (c) => resolve(c ?? 1)))
    clearTimeout(timer)
    return code
  } finally {
    await infra.stop()
  }
}

if (import.meta.main) process.exitCode = await main()
