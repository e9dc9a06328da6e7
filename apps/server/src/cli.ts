// `npm run adgate -- <command>`: administration of the server's database. On the embedded database (ADGATE_DATA_DIR)
// a running server holds the data folder, so the command goes to that server through its admin socket
// (adminSocket.ts); with no server answering there, and always with DATABASE_URL, the CLI opens the database itself
// (docs/decisions.md, "The operator CLI while the server runs"). Either way the command is commands.ts's, and its
// answer the same: stdout the answer, stderr the refusal's sentence, exit code 1 when refused.
//
// A password the operator chooses (`user add`, `user password`) is never a word of the command line, where it would
// stay in the shell's history and show in the process list to every user of the machine: `--password-stdin` reads it
// here, in the CLI's process (a prompt without echo, asked twice, on a terminal; the first line of a pipe otherwise),
// `--password-env <VARIABLE>` takes it from the environment, and `--password <value>` is refused.
import { ConfigProvider, Effect, Layer, Logger, Option } from "effect"
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { read } from "read"
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
  /** Where `--password-stdin` reads (the process's standard input when not given). */
  readonly stdin?: Readable & { readonly isTTY?: boolean }
  /** Where a password prompt is written on a terminal (standard error when not given: stdout carries only the answer). */
  readonly promptTo?: Writable
}

/** The commands that set a password the operator may choose. */
const passwordCommands: ReadonlySet<string> = new Set(["user add", "user password"])

export const passwordOnCommandLineRefused =
  "--password is refused: a password on the command line stays in the shell's history and shows in the process list " +
  "to every user of this machine. Use --password-stdin (typed at a prompt that does not echo it, or one line from a " +
  "pipe) or --password-env <VARIABLE> (the name of an environment variable that holds it)."

/** The first line of a pipe or file, without its line end; null when it ends before any. */
const firstLine = (input: Readable) =>
  new Promise<string | null>((resolve, reject) => {
    const lines = createInterface({ input, terminal: false, crlfDelay: Infinity })
    let line: string | null = null
    lines.once("line", (text) => {
      line = text
      lines.close()
    })
    lines.once("close", () => resolve(line))
    input.once("error", reject)
  })

/** A password typed at a terminal: prompted on `promptTo`, never echoed; asked twice, so a typing mistake is not set. */
const typedPassword = async (input: Readable, promptTo: Writable): Promise<{ readonly typed: string } | { readonly refused: string }> => {
  try {
    const ask = (prompt: string) => read({ input, output: promptTo, prompt, silent: true, replace: "", terminal: true })
    const first = await ask("Password:")
    const again = await ask("The same password again:")
    return first === again ? { typed: first } : { refused: "the two passwords differ; nothing was changed" }
  } catch {
    // Ctrl-C at the prompt (read rejects).
    return { refused: "cancelled; nothing was changed" }
  }
}

/**
 * The words of the command with the password the operator chose, read from standard input or the environment,
 * as the command's own `--password=` (which then travels only to commands.ts, in this process or over the admin
 * socket); or the sentence that refuses the command before anything runs.
 */
export const withChosenPassword = async (
  argv: ReadonlyArray<string>,
  io: CliIo
): Promise<{ readonly argv: ReadonlyArray<string> } | { readonly refused: string }> => {
  const words: Array<string> = []
  const sources: Array<{ readonly stdin: true } | { readonly variable: string | undefined }> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--password" || arg.startsWith("--password=")) return { refused: passwordOnCommandLineRefused }
    if (arg === "--password-stdin") sources.push({ stdin: true })
    else if (arg === "--password-env") sources.push({ variable: argv[++i] })
    else if (arg.startsWith("--password-env=")) sources.push({ variable: arg.slice("--password-env=".length) })
    else words.push(arg)
  }
  const [source, ...more] = sources
  if (source === undefined) return { argv }
  const command = words.filter((w) => !w.startsWith("--")).slice(0, 2).join(" ")
  if (!passwordCommands.has(command)) return { refused: `--password-stdin and --password-env are options of ${[...passwordCommands].join(" and ")} only` }
  if (more.length > 0) return { refused: "give the password one way: --password-stdin or --password-env, once" }
  let password: string | null | undefined
  if ("variable" in source) {
    if (source.variable === undefined || source.variable === "") return { refused: "--password-env needs the name of an environment variable" }
    password = io.env[source.variable]
    if (password === undefined || password === "") return { refused: `the environment variable ${source.variable} is not set or empty` }
  } else {
    const input = io.stdin ?? process.stdin
    if (input.isTTY === true) {
      const typed = await typedPassword(input, io.promptTo ?? process.stderr)
      if ("refused" in typed) return typed
      password = typed.typed
    } else password = await firstLine(input)
    if (password === null || password === "") return { refused: "no password was read from standard input; nothing was changed" }
  }
  return { argv: [...words, `--password=${password}`] }
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
  const chosen = await withChosenPassword(argv, io)
  if ("refused" in chosen) {
    io.err(chosen.refused)
    return 1
  }
  const answer = await Effect.runPromise(program(chosen.argv, io))
  for (const line of answer.out) io.out(line)
  for (const line of answer.err) io.err(line)
  return answer.exitCode
}

if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    env: process.env,
    stdin: process.stdin,
    promptTo: process.stderr
  })
}
