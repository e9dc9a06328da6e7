// `npm run adgate -- <command>`: administration of the server's database. On the embedded database (ADGATE_DATA_DIR)
// a running server holds the data folder, so the command goes to that server through its admin socket
// (adminSocket.ts); with no server answering there, and always with DATABASE_URL, the CLI opens the database itself
// (docs/decisions.md, "The operator CLI while the server runs"). Either way the command is commands.ts's, and its
// answer the same: stdout the answer, stderr the refusal's sentence, exit code 1 when refused.
import { ConfigProvider, Effect, Layer, Logger, Option } from "effect"
import { sendToRunningServer } from "./adminSocket.ts"
import { type AppConfig, loadAppConfig } from "./config.ts"
import { appPorts } from "./appPorts.ts"
import { answerOf, type CommandAnswer, refusedAnswer, runCommand, usage } from "./commands.ts"
import { formatLogfmtOneMessage } from "adgate"

export { usage } from "./commands.ts"

/** Where the CLI writes, and the environment it reads its configuration from (the process's own, or a test's). */
export interface CliIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The command on the database, opened by this process. */
const onTheDatabase = (argv: ReadonlyArray<string>, config: AppConfig) =>
  answerOf((say) => Effect.scoped(runCommand(argv, say).pipe(Effect.provide(appPorts(config)))))

/** The whole run of one command: configuration from `env`, then the running server or the database. */
const program = (argv: ReadonlyArray<string>, io: CliIo): Effect.Effect<CommandAnswer> =>
  Effect.gen(function* () {
    const config = yield* loadAppConfig
    // With PostgreSQL every process opens the database: the CLI does, whatever server runs (no socket is asked).
    if (Option.isSome(config.databaseUrl)) return yield* onTheDatabase(argv, config)
    const answered = yield* sendToRunningServer(config.dataDir, argv)
    return Option.isSome(answered) ? answered.value : yield* onTheDatabase(argv, config)
  }).pipe(
    Effect.catchCause((cause) => Effect.succeed(refusedAnswer(cause))),
    Effect.provide(Layer.mergeAll(
      // Log lines go to stderr: stdout carries only the command's answer.
      Logger.layer([Logger.map(formatLogfmtOneMessage, io.err)]),
      ConfigProvider.layer(ConfigProvider.fromEnv({ env: definedOnly(io.env) }))
    ))
  )

const definedOnly = (env: Readonly<Record<string, string | undefined>>) => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v
  return out
}

/**
 * Runs the CLI with `argv` (the words after `adgate`) and answers the exit code: 0 done, 1 refused or failed. With
 * no words it prints the usage and answers 1; `help` prints it and answers 0.
 */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  if (argv.length === 0) {
    io.err(usage)
    return 1
  }
  if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    io.out(usage)
    return 0
  }
  const answer = await Effect.runPromise(program(argv, io))
  for (const line of answer.out) io.out(line)
  for (const line of answer.err) io.err(line)
  return answer.exitCode
}

if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    env: process.env
  })
}
