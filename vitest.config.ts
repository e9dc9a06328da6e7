import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two test files at a time at least: vitest's default is one worker fewer than the cores (one on CI's two-core
    // machines), and most suites wait on a server process, PostgreSQL or Chromium rather than on their own CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1)
  }
})
