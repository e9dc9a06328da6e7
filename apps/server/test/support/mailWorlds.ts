// The worlds of the mail tests over a real SMTP server (test/support/smtpTestServer.ts): each case opens a fresh
// world (the server's own ports, seeded, on PGlite in a folder of its own or on a fresh PostgreSQL database) and
// starts SMTP servers, all closed after the describe block.
import { afterAll } from "vitest"
import { type Context, Effect, Layer, Option, Scope } from "effect"
import { rmSync } from "node:fs"
import { type SmtpTestServer, startSmtpTestServer } from "../../../../test/support/smtpTestServer.ts"
import { databaseUrl, postgresTaskWorld, taskWorld, tempDataDir } from "./taskWorld.ts"

export type MailWorld = Context.Context<Layer.Success<ReturnType<typeof taskWorld>>>
export type MakeMailWorld = () => Layer.Layer<Layer.Success<ReturnType<typeof taskWorld>>, unknown>

/** Runs `effect` on `world`'s ports. */
export const run = <A, E>(world: MailWorld, effect: Effect.Effect<A, E, any>) =>
  Effect.runPromise(Effect.provide(effect, world) as Effect.Effect<A, E>)

/** For one describe block: `open` builds a fresh world, `smtpServer` starts an SMTP server; both closed after it. */
export const useMailWorlds = (makeWorld: MakeMailWorld) => {
  const closers: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const close of closers.reverse()) await close()
  })
  const open = async () => {
    const scope = Effect.runSync(Scope.make())
    closers.push(() => Effect.runPromise(Scope.close(scope, Effect.void as never)))
    const world = await Effect.runPromise(Layer.buildWithScope(makeWorld(), scope)) as MailWorld
    return { scope, world }
  }
  const smtpServer = async (port?: number): Promise<SmtpTestServer> => {
    const smtp = await startSmtpTestServer(port === undefined ? {} : { port })
    closers.push(() => smtp.stop())
    return smtp
  }
  return { open, smtpServer }
}

/** The two databases a mail suite runs on: `suite(title on PGlite, …)`, and on PostgreSQL when DATABASE_URL is set. */
export const onEachDatabase = (title: string, suite: (title: string, makeWorld: MakeMailWorld, database: "PGlite" | "PostgreSQL") => void) => {
  const dataDirs: Array<string> = []
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  })
  suite(`${title} on PGlite`, () => {
    const dataDir = tempDataDir()
    dataDirs.push(dataDir)
    return taskWorld(dataDir)
  }, "PGlite")
  if (Option.isSome(databaseUrl)) suite(`${title} on PostgreSQL`, () => postgresTaskWorld(Option.getOrElse(databaseUrl, () => "")), "PostgreSQL")
}
