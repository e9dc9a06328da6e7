#!/usr/bin/env bash
# Builds the library packages (npm run build: each package's dist/, docs/embedding.md "The build"), packs each dist/
# into examples/.packs/<name>.tgz (adgate.tgz, adgate-core.tgz, adgate-contract-kit.tgz, …), then installs the tarballs
# into each example and runs its tests, as a host outside this repository would: each example is its own package,
# not a workspace member, naming the tarballs by path in its package.json.
#   bash examples/run.sh                 every example
#   bash examples/run.sh core-alone      the ones named
#   ADGATE_BUILT=1 bash examples/run.sh  the packages were just built (.ci/run's check:pack): pack them as they are
# Exits non-zero when any example fails, naming the ones that did.
set -uo pipefail
cd "$(dirname "$0")/.."

packs="$PWD/examples/.packs"
rm -rf "$packs" && mkdir -p "$packs"
if [ "${ADGATE_BUILT:-0}" != "1" ]; then npm run build || { echo "examples: the build failed"; exit 1; }; fi
for dist in packages/*/dist; do
  [ -f "$dist/package.json" ] || continue
  file=$(cd "$dist" && npm pack --silent --pack-destination "$packs" | tail -n 1)
  # Named without the version, so that the examples' package.json name them once for all versions.
  mv "$packs/$file" "$packs/${file%-*.tgz}.tgz" || { echo "examples: packing $dist failed"; exit 1; }
done
ls "$packs"

if [ "$#" -gt 0 ]; then examples=("$@"); else examples=(); for dir in examples/*/; do [ -f "$dir/package.json" ] && examples+=("$(basename "$dir")"); done; fi

passed=0
failed=()
for name in "${examples[@]}"; do
  echo "== examples/$name"
  # A fresh install each time: the tarballs were just built, and no lockfile pins their old integrity.
  if (cd "examples/$name" && rm -rf node_modules && npm install --no-audit --no-fund --no-package-lock && npm test); then
    passed=$((passed + 1))
  else
    failed+=("$name")
  fi
done
[ "${#failed[@]}" -gt 0 ] && echo "failed examples: ${failed[*]}"
echo "examples that passed: $passed of $((passed + ${#failed[@]}))"
[ "${#failed[@]}" -eq 0 ]
