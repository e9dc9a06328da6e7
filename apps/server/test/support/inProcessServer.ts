// The server's whole layer in this process, as `npm start` composes it, on the environment `env`: started and
// answering /health, with its log lines (logfmt) kept. `compose` replaces the composition (e.g. to add a tracing
// layer), `around` wraps the running server (e.g. in a tracer of the test's).
import { ConfigProvider, Effect, Fiber, Layer, Logger } from "effect"
import { type AppConfig, loadAppConfig } from "../../src/config.ts"
import { serverLayer } from "../../src/main.ts"

export interface InProcessOptions {
  readonly compose?: (config: AppConfig) => Layer.Layer<never, unknown>
  readonly around?: <A, E, R>(server: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const startInProcessServer = async (env: Record<string, string>, port: number, options: InProcessOptions = {}) => {
  const logs: Array<string> = []
  const compose = options.compose ?? serverLayer
  const around = options.around ?? ((server) => server)
  const fiber = Effect.runFork(around(Effect.gen(function* () {
    return yield* Layer.launch(compose(yield* loadAppConfig))
  })).pipe(Effect.provide(Layer.mergeAll(
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
