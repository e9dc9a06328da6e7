// apps/server is a thin host over the public entry (docs/embedding.md): its sources import adgate's packages only
// through `adgate`, `adgate/server` and the core's services (`@adgate/core`), never an adapter or a path into a
// package, so the reference server runs exactly what an embedding host installs.
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const source = join(import.meta.dirname, "..", "src")
// Third-party packages are the server's own business (nodemailer, read, OpenTelemetry…); what is checked is how it
// reaches adgate: a workspace package other than the public entries, a subpath of one, or a relative path out of
// apps/server is refused.
const allowed = (specifier: string) =>
  ["adgate", "adgate/server", "@adgate/core"].includes(specifier) ||
  (specifier.startsWith(".") ? !specifier.startsWith("../") : !(specifier.startsWith("@adgate/") || specifier.startsWith("adgate/")))

describe("apps/server as a thin host", () => {
  it("imports adgate only through its public entries", () => {
    const refused: Array<string> = []
    for (const file of readdirSync(source).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(join(source, file), "utf8")
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g))
        if (!allowed(specifier!)) refused.push(`${file}: ${specifier}`)
    }
    assert.deepStrictEqual(refused, [])
  })
})
