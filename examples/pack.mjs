// Builds the library packages to ESM JavaScript with .d.ts and packs each into a tarball, as a host installs them:
//   npx node examples/pack.mjs            → examples/.packs/<name>.tgz (adgate-core.tgz, adgate-contract-kit.tgz, …)
// One TypeScript program over every packages/*/src (one compile, the sources' own imports rewritten .ts → .js), then
// per package a staged package.json whose exports name the built files, without the workspace's "private" and
// "*" versions, and `npm pack`. The examples install these tarballs by path (examples/*/package.json).
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const out = join(root, "examples/.packs")
const stage = join(out, "stage")
const version = "0.1.0"

rmSync(out, { recursive: true, force: true })
mkdirSync(stage, { recursive: true })

const packages = readdirSync(join(root, "packages")).filter((dir) => existsSync(join(root, "packages", dir, "package.json")))

// The build: the repository's compiler settings, emitting instead of checking only.
const tsconfig = join(out, "tsconfig.pack.json")
writeFileSync(tsconfig, JSON.stringify({
  extends: "../../tsconfig.base.json",
  compilerOptions: { noEmit: false, declaration: true, sourceMap: false, rootDir: "../../packages", outDir: "stage" },
  include: packages.map((dir) => `../../packages/${dir}/src`)
}, null, 2))
execFileSync("npx", ["tsc", "-p", tsconfig], { cwd: root, stdio: "inherit" })

/** "./src/x.ts" → { types: "./src/x.d.ts", default: "./src/x.js" }. */
const built = (target) => ({ types: target.replace(/\.ts$/, ".d.ts"), default: target.replace(/\.ts$/, ".js") })

for (const dir of packages) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"))
  const exports = Object.fromEntries(Object.entries(manifest.exports)
    .filter(([subpath]) => !subpath.includes("*"))
    .map(([subpath, target]) => [subpath, built(target)]))
  const pinned = (deps = {}) => Object.fromEntries(Object.entries(deps).map(([name, range]) => [name, name.startsWith("@adgate/") ? version : range]))
  const { private: _private, devDependencies: _dev, ...rest } = manifest
  const staged = { ...rest, version, exports, dependencies: pinned(manifest.dependencies) }
  const target = join(stage, dir)
  cpSync(join(root, "packages", dir, "package.json"), join(target, "package.json"))
  writeFileSync(join(target, "package.json"), JSON.stringify(staged, null, 2) + "\n")
  // npm pack names the tarball after name and version; the examples name it without the version.
  const file = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: target, encoding: "utf8" }).trim().split("\n").pop()
  const named = `${manifest.name.replace(/^@/, "").replace("/", "-")}.tgz`
  renameSync(join(out, file), join(out, named))
  console.log(`packed ${manifest.name} → examples/.packs/${named}`)
}
