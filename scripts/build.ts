// `npm run build`: the library packages as ESM JavaScript with .d.ts in each package's dist/ (git-ignored), and in
// each dist/ the package.json a consumer installs (docs/embedding.md, The build). The workspace itself never uses
// dist/: its packages export their TypeScript sources, which Node 24 runs as they are, so `npm test` and `npm start`
// need no build. A package is compiled against the .d.ts of the packages it depends on (built before it), so the
// emitted declarations name them by package, never by a path into another package's sources.
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

export const root = join(import.meta.dirname, "..")

/** The library packages, each after the packages it depends on. */
export const libraryPackages = [
  "core", "answers", "adapters-jsonschema", "adapters-sql", "adapters-platforms", "adapters-http", "adapters-mcp", "adgate",
  "contract-kit"
] as const

/** Dependencies a host provides once for itself and adgate together: peers, at the versions adgate is tested with. */
const peers = new Set(["effect", "@effect/sql-pg", "@effect/platform-node", "@electric-sql/pglite"])
/** Peers a host may leave out: PGlite is loaded only for `{ pglite }` and `{ memory }` databases. */
const optionalPeers = new Set(["@electric-sql/pglite"])
/** Node versions the built packages run on (checked by test/pack/packedInstall.test.ts). */
const engines = { node: ">=20.20" }

interface Manifest {
  readonly name: string
  readonly version?: string
  readonly description?: string
  readonly exports: Readonly<Record<string, string>>
  readonly dependencies?: Readonly<Record<string, string>>
  /** A package's own peers (the contract kit's test runner), kept as they are. */
  readonly peerDependencies?: Readonly<Record<string, string>>
}

const read = (dir: string): Manifest => JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest
const version = read("adgate").version ?? "0.0.0"
const nameToDir = new Map(libraryPackages.map((dir) => [read(dir).name, dir]))

/** `./src/x/index.ts` → the built `./x/index.js` and its `./x/index.d.ts`. */
const built = (source: string) => {
  const path = source.replace(/^\.\/src\//, "./").replace(/\.ts$/, "")
  return { types: `${path}.d.ts`, default: `${path}.js` }
}

const tsconfigFor = (manifest: Manifest) => {
  // Each workspace package this one imports resolves to that package's built declarations.
  const paths: Record<string, Array<string>> = {}
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    const depDir = nameToDir.get(dependency)
    if (depDir === undefined) continue
    for (const [entry, source] of Object.entries(read(depDir).exports)) {
      if (entry.includes("*")) continue
      const specifier = entry === "." ? dependency : `${dependency}/${entry.slice(2)}`
      paths[specifier] = [join("..", depDir, "dist", built(source).types.slice(2))]
    }
  }
  return {
    extends: "../../tsconfig.base.json",
    compilerOptions: {
      noEmit: false, declaration: true, rootDir: "src", outDir: "dist", paths,
      // The .d.ts are what consumers type against; their maps would point at sources the tarballs do not carry.
      declarationMap: false, sourceMap: false
    },
    include: ["src"]
  }
}

const distManifest = (manifest: Manifest) => {
  const dependencies: Record<string, string> = {}
  const peerDependencies: Record<string, string> = { ...manifest.peerDependencies }
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
    if (name.startsWith("@types/")) continue
    if (peers.has(name)) peerDependencies[name] = range
    // The workspace's own packages are released together, at one version.
    else dependencies[name] = nameToDir.has(name) ? version : range
  }
  const exports: Record<string, { types: string; default: string }> = {}
  for (const [entry, source] of Object.entries(manifest.exports)) if (!entry.includes("*")) exports[entry] = built(source)
  const optional = Object.keys(peerDependencies).filter((name) => optionalPeers.has(name))
  return {
    name: manifest.name, version, description: manifest.description ?? `${manifest.name}: part of adgate (docs/embedding.md).`,
    type: "module", engines, exports, dependencies, peerDependencies,
    ...(optional.length === 0 ? {} : { peerDependenciesMeta: Object.fromEntries(optional.map((name) => [name, { optional: true }])) })
  }
}

export const build = () => {
  for (const dir of libraryPackages) {
    const pkg = join(root, "packages", dir)
    const manifest = read(dir)
    rmSync(join(pkg, "dist"), { recursive: true, force: true })
    const config = join(pkg, "tsconfig.build.json")
    writeFileSync(config, JSON.stringify(tsconfigFor(manifest), null, 2) + "\n")
    try {
      execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", config], { cwd: pkg, stdio: "inherit" })
    } finally {
      rmSync(config, { force: true })
    }
    writeFileSync(join(pkg, "dist", "package.json"), JSON.stringify(distManifest(manifest), null, 2) + "\n")
    if (existsSync(join(pkg, "README.md"))) cpSync(join(pkg, "README.md"), join(pkg, "dist", "README.md"))
    process.stdout.write(`built ${manifest.name} ${version} in packages/${dir}/dist\n`)
  }
}

if (import.meta.main) build()
