// The server's whole layer in this process, as `npm start` composes it, on the environment `env`: started and
// answering /health, with its log lines (logfmt) kept.
import { ConfigProvider, Effect, Fiber, Layer, Logger } from "effect"
import { loadAppConfig } from "../../src/config.ts"
import { serverLayer } from "../../src/main.ts"

export const startInProcessServer = async (env: Record<string, string>, port: number) => {
  const logs: Array<string> = []
  const fiber = Effect.runFork(Effect.gen(function* () {
    return yield* Layer.launch(serverLayer(yield* loadAppConfig))
  }).pipe(Effect.provide(Layer.mergeAll(
    ConfigProvider.layer(ConfigProvider.fromEnv({ env })),
    Logger.layer([Logger.map(Logger.formatLogFmt, (line) => { logs.push(line) })])
  ))))
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    const health = await fetch(`${origin}/health`).catch(() => undefined)
    if (health?.status === 200) break
    if (Date.now() > deadline) throw new Error(`in-process server did not start:\n${logs.join("\n")}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { origin, logs, stop: () => Effect.runPromise(Fiber.interrupt(fiber)) }
}
