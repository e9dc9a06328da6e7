// The module boundaries of docs/architecture.md §Module faces, read from the source: other packages reach the core
// only through @adgate/core and @adgate/core/testing; production code never reaches the testing entry, by any path of
// imports; each core folder's index.ts is its public face and the root index is one line per face; one port a file.
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = join(import.meta.dirname, "../../..")
const coreSrc = join(root, "packages/core/src")
const testingDir = join(coreSrc, "testing")

const walk = (dir: string, out: Array<string> = []): Array<string> => {
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (/\.ts$/.test(name)) out.push(path)
  }
  return out
}
const packageDirs = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(root, group)).map((name) => join(root, group, name)).filter((dir) => existsSync(join(dir, "package.json"))))
/** The contract kit is test code shipped for hosts: its src/ is test code, like the core's testing entry. */
const contractKitSrc = join(root, "packages/contract-kit/src")
/** Production code: every package's src/ (the testing entry is core's test code that lives in src/). */
const productionFiles = packageDirs.flatMap((dir) => walk(join(dir, "src")))
  .filter((f) => !f.startsWith(testingDir + "/") && !f.startsWith(contractKitSrc + "/"))
const testFiles = [...packageDirs.flatMap((dir) => walk(join(dir, "test"))), ...walk(join(root, "test")), ...walk(contractKitSrc)]
const rel = (file: string) => relative(root, file)

/** The module specifiers a file imports or re-exports, static and dynamic. */
const specifiersOf = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  return [
    ...[...text.matchAll(/^\s*(?:import|export)\b[^"'`;]*?\bfrom\s+"([^"]+)"/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*import\s+"([^"]+)"/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!)
  ]
}

/** Where a workspace package's specifier leads, through its package.json exports ("." , "./name" and "./*"). */
const workspaceEntries = new Map(packageDirs.map((dir) => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; exports: Record<string, string> }
  return [manifest.name, { dir, exports: manifest.exports }] as const
}))
const resolveSpecifier = (from: string, specifier: string): string | null => {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier)
  const name = specifier.split("/").slice(0, 2).join("/")
  const entry = workspaceEntries.get(name)
  if (!entry) return null // effect, node:, other libraries
  const sub = "." + specifier.slice(name.length)
  const exact = entry.exports[sub]
  if (exact) return join(entry.dir, exact)
  const star = entry.exports["./*"]
  return star ? join(entry.dir, star.replace("*", sub.slice(2))) : null
}

/** Chains of imports from any of `starts` to a file inside `target` (one per file reached first), breadth first. */
const pathsInto = (starts: ReadonlyArray<string>, target: string): Array<Array<string>> => {
  const parent = new Map<string, string | null>(starts.map((start) => [start, null]))
  const queue = [...starts]
  const found: Array<Array<string>> = []
  const chainTo = (file: string): Array<string> => {
    const chain = [file]
    for (let up = parent.get(file); up; up = parent.get(up)) chain.unshift(up)
    return chain
  }
  while (queue.length > 0) {
    const file = queue.shift()!
    if (file.startsWith(target + "/")) {
      found.push(chainTo(file))
      continue
    }
    for (const specifier of specifiersOf(file)) {
      const next = resolveSpecifier(file, specifier)
      if (next === null || parent.has(next) || !existsSync(next)) continue
      parent.set(next, file)
      queue.push(next)
    }
  }
  return found
}

/**
 * The one adapter that builds on another (docs/architecture.md, One core, thin adapters): the sandbox platforms keep
 * their tables in the service's database and seal each workspace's platform credential with adapters-sql's
 * CredentialCipher. Every other pair is refused; what both HTTP surfaces render is @adgate/answers.
 */
const allowedAdapterImports: ReadonlyArray<readonly [string, string]> = [["adapters-platforms", "adapters-sql"]]

const coreFolders = readdirSync(coreSrc).filter((name) => statSync(join(coreSrc, name)).isDirectory())

describe("module boundaries", () => {
  it("no production file imports @adgate/core/testing or the core's testing folder, directly or through other files", () => {
    assert.isAbove(productionFiles.length, 100)
    assert.deepStrictEqual(
      productionFiles.filter((f) => specifiersOf(f).some((s) => s === "@adgate/core/testing" || s === "@adgate/contract-kit")).map(rel), [])
    assert.deepStrictEqual(pathsInto(productionFiles, testingDir).map((chain) => chain.map(rel).join(" -> ")), [])
  })

  it("the tests do use the testing entry (the check above reads real imports)", () => {
    assert.isAbove(testFiles.filter((f) => specifiersOf(f).includes("@adgate/core/testing")).length, 10)
  })

  it("@adgate/core exports its root and the testing entry only, and nothing imports a deep core path", () => {
    const manifest = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")) as { exports: Record<string, string> }
    assert.deepStrictEqual(manifest.exports, { ".": "./src/index.ts", "./testing": "./src/testing/index.ts" })
    const deep = [...productionFiles, ...testFiles].flatMap((f) =>
      specifiersOf(f)
        .filter((s) => (s.startsWith("@adgate/core/") && s !== "@adgate/core/testing") ||
          (!f.startsWith(join(root, "packages/core") + "/") && s.startsWith(".") && resolve(dirname(f), s).startsWith(coreSrc + "/")))
        .map((s) => `${rel(f)}: ${s}`))
    assert.deepStrictEqual(deep, [])
  })

  it("every core folder has an index.ts, and the root index is one line per face, the testing entry excepted", () => {
    const folders = coreFolders.filter((name) => name !== "testing")
    assert.isAbove(folders.length, 15)
    assert.deepStrictEqual(folders.filter((name) => !existsSync(join(coreSrc, name, "index.ts"))), [])
    const rootExports = readFileSync(join(coreSrc, "index.ts"), "utf8").split("\n").filter((line) => line.startsWith("export"))
    assert.deepStrictEqual([...rootExports].sort(), folders.map((name) => `export * from "./${name}/index.ts"`).sort())
  })

  it("a core folder imports from another folder only the files that folder's face exports", () => {
    const faceFiles = new Map(coreFolders.map((folder) => {
      const face = join(coreSrc, folder, "index.ts")
      const listed = existsSync(face) ? specifiersOf(face).map((s) => resolve(join(coreSrc, folder), s)) : []
      return [folder, new Set(listed)] as const
    }))
    const folderOf = (file: string) => relative(coreSrc, file).split("/")[0]!
    const reaching = walk(coreSrc).filter((file) => dirname(file) !== coreSrc).flatMap((file) =>
      specifiersOf(file)
        .filter((s) => s.startsWith("."))
        .map((s) => resolve(dirname(file), s))
        .filter((target) => target.startsWith(coreSrc + "/") && folderOf(target) !== folderOf(file))
        .filter((target) => target !== join(coreSrc, folderOf(target), "index.ts") && !faceFiles.get(folderOf(target))?.has(target))
        .map((target) => `${rel(file)} -> ${rel(target)}`))
    assert.deepStrictEqual(reaching, [])
  })

  it("no core file outside the testing folder imports from it", () => {
    const inward = pathsInto(walk(coreSrc).filter((f) => !f.startsWith(testingDir + "/")), testingDir)
    assert.deepStrictEqual(inward.map((chain) => chain.map(rel).join(" -> ")), [])
  })

  it("an adapter never imports another adapter: no production file of an adapters-* package reaches another one, by any path of imports, nor lists it as a dependency", () => {
    const adapters = packageDirs.filter((dir) => /^adapters-/.test(relative(join(root, "packages"), dir)))
    assert.isAbove(adapters.length, 4)
    const name = (dir: string) => relative(join(root, "packages"), dir)
    const allowed = (from: string, to: string) => allowedAdapterImports.some(([a, b]) => a === from && b === to)
    const reaching = adapters.flatMap((dir) => {
      const own = walk(join(dir, "src"))
      return adapters.filter((other) => other !== dir && !allowed(name(dir), name(other))).flatMap((other) =>
        pathsInto(own, other).map((chain) => chain.map(rel).join(" -> ")))
    })
    assert.deepStrictEqual(reaching, [])
    const listed = adapters.flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; dependencies?: Record<string, string> }
      return Object.keys(manifest.dependencies ?? {})
        .filter((dependency) => dependency.startsWith("@adgate/adapters-") && !allowed(name(dir), dependency.slice("@adgate/".length)))
        .map((dependency) => `${manifest.name} -> ${dependency}`)
    })
    assert.deepStrictEqual(listed, [])
  })

  it("@adgate/answers, which both HTTP surfaces import, imports only the core and effect", () => {
    const files = walk(join(root, "packages/answers/src"))
    assert.isAbove(files.length, 3)
    const foreign = files.flatMap((f) => specifiersOf(f)
      .filter((s) => !s.startsWith(".") && s !== "@adgate/core" && s !== "effect" && !s.startsWith("effect/"))
      .map((s) => `${rel(f)}: ${s}`))
    assert.deepStrictEqual(foreign, [])
  })

  it("one port a file: each file of ports/ declares at most one port, named after the file", () => {
    const ports = readdirSync(join(coreSrc, "ports")).filter((name) => name.endsWith(".ts") && name !== "index.ts")
    const wrong = ports.flatMap((name) => {
      const text = readFileSync(join(coreSrc, "ports", name), "utf8")
      const declared = [...text.matchAll(/^export\s+(?:class\s+(\w+)\s+extends\s+Context\.Service|const\s+(\w+)\s*=\s*Context\.Reference)/gm)]
        .map((m) => m[1] ?? m[2])
      return declared.length > 1 || (declared.length === 1 && `${declared[0]}.ts` !== name) ? [`${name}: ${declared.join(", ")}`] : []
    })
    assert.deepStrictEqual(wrong, [])
  })
})
