#!/usr/bin/env node
// The conformance kit's command line (docs/conformance.md):
//   npm run conformance -- --issuer <url> --profile adgate|oauth-2.1 --consent <driver> [--runs N] [--seed S] [--quick]
// Exit status: 0 when no rule of the profile deviated, 1 on a deviation, 2 when the run could not be made.
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import { adgateConsentFromEnv } from "./consent/adgate.ts"
import type { ConsentDriver } from "./consent/ConsentDriver.ts"
import { oidcProviderConsent } from "./consent/oidcProvider.ts"
import { formatJUnit, formatText } from "./report.ts"
import { profiles, withOverrides } from "./rules.ts"
import { runConformance } from "./run.ts"

const usage = `usage: npm run conformance -- --issuer <url> [--profile adgate|oauth-2.1] [--consent adgate|oidc-provider|<module>]
  [--runs N] [--seed S] [--path P] [--quick] [--set flag=value]... [--resource URL] [--foreign-resource URL]
  [--probe URL] [--scope "a b"] [--client-id ID] [--other-client-id ID] [--redirect-uri URL] [--parallel N]
  [--max-commands N] [--time-limit SECONDS] [--request-timeout SECONDS] [--json FILE] [--junit FILE]
The adgate consent driver signs in as CONFORMANCE_EMAIL with CONFORMANCE_PASSWORD.`

const loadConsent = async (name: string): Promise<ConsentDriver> => {
  if (name === "adgate") return adgateConsentFromEnv()
  if (name === "oidc-provider") return oidcProviderConsent()
  // A module of the user's: its default export is a ConsentDriver, or a function of the environment returning one.
  const module = (await import(pathToFileURL(resolve(name)).href)) as { readonly default?: unknown }
  const exported = module.default
  const driver = typeof exported === "function" ? await (exported as (env: NodeJS.ProcessEnv) => unknown)(process.env) : exported
  if (typeof driver !== "object" || driver === null || typeof (driver as ConsentDriver).approve !== "function")
    throw new Error(`--consent ${name}: the module's default export is not a consent driver (docs/conformance.md)`)
  return driver as ConsentDriver
}

const number = (value: string | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a whole number`)
  return n
}

export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      issuer: { type: "string" }, profile: { type: "string", default: "adgate" }, consent: { type: "string" },
      runs: { type: "string" }, seed: { type: "string" }, path: { type: "string" }, quick: { type: "boolean", default: false },
      set: { type: "string", multiple: true, default: [] }, resource: { type: "string" }, "foreign-resource": { type: "string" },
      probe: { type: "string" }, scope: { type: "string", default: "tools:read tools:write" }, "client-id": { type: "string" },
      "other-client-id": { type: "string" }, "redirect-uri": { type: "string" }, parallel: { type: "string" },
      "max-commands": { type: "string" }, "time-limit": { type: "string" }, "request-timeout": { type: "string" }, json: { type: "string" }, junit: { type: "string" },
      help: { type: "boolean", default: false }
    },
    strict: true
  })
  if (values.help) { console.log(usage); return 0 }
  if (values.issuer === undefined) throw new Error("--issuer is required")
  const issuer = values.issuer.replace(/\/+$/, "")
  const base = profiles[values.profile as keyof typeof profiles]
  if (base === undefined) throw new Error(`--profile ${values.profile}: adgate or oauth-2.1`)
  const profile = withOverrides(base, values.set)
  const isAdgate = values.profile === "adgate"
  // adgate's surfaces: the REST API is authorized and probed (GET /api/v1/me), the MCP server is the other resource.
  const resource = values.resource ?? (isAdgate ? `${issuer}/api/v1` : null)
  const foreignResource = values["foreign-resource"] ?? (isAdgate ? `${issuer}/api/mcp` : null)
  const probe = values.probe ?? (isAdgate ? `${issuer}/api/v1/me` : null)
  const words = values.scope.split(/\s+/).filter((w) => w !== "")
  const consent = await loadConsent(values.consent ?? (isAdgate ? "adgate" : "oidc-provider"))
  const report = await runConformance({
    issuer, profile, consent, resource, foreignResource, probe, scope: words.join(" "),
    narrowScope: words[0] ?? "", widenScope: [...words, "tools:raw"].join(" "),
    ...(values["client-id"] === undefined ? {} : { clientId: values["client-id"] }),
    ...(values["other-client-id"] === undefined ? {} : { otherClientId: values["other-client-id"] }),
    ...(values["redirect-uri"] === undefined ? {} : { redirectUri: values["redirect-uri"] }),
    runs: number(values.runs, "runs", 10),
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
    ...(values.path === undefined ? {} : { path: values.path }),
    quick: values.quick, maxParallel: Math.max(2, number(values.parallel, "parallel", 3)),
    maxCommands: number(values["max-commands"], "max-commands", 12),
    timeLimitMs: number(values["time-limit"], "time-limit", 900) * 1000,
    requestTimeoutMs: Math.max(1, number(values["request-timeout"], "request-timeout", 30)) * 1000,
    log: (line) => console.error(line)
  })
  console.log(formatText(report))
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(report, null, 2))
  if (values.junit !== undefined) writeFileSync(values.junit, formatJUnit(report))
  return report.passed ? 0 : 1
}

if (import.meta.main) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (error: unknown) => {
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`)
    console.error(usage)
    process.exit(2)
  })
}
