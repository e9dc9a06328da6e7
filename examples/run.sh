#!/usr/bin/env bash
# Builds and packs the library packages (examples/pack.mjs), then installs the tarballs into each example and runs
# its tests, as a host outside this repository would: each example is its own package, not a workspace member.
#   bash examples/run.sh                 every example
#   bash examples/run.sh core-alone      the ones named
# Exits non-zero when any example fails, naming the ones that did.
set -uo pipefail
cd "$(dirname "$0")/.."

npx node examples/pack.mjs || { echo "examples: the build or the pack failed"; exit 1; }

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
