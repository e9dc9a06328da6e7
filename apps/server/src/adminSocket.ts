// The running server's admin endpoint (docs/decisions.md, "The operator CLI while the server runs"): the CLI's
// commands sent to the server that holds the embedded database, so that `npm run adgate` works while it runs.
//
// Reachable by the data folder's owner only: a Unix domain socket `<data folder>/admin.sock` (mode 0600: only its
// owner may connect), never the public listener; and every request carries the secret the server writes at start to
// `<data folder>/admin.secret` (mode 0600), kept in the server as its SHA-256 and compared in constant time.
// Protocol: HTTP/1.1 on the socket, one `POST /admin/command` per command, `Authorization: Bearer <secret>`, body
// `{"argv": [...]}` (the words after `adgate`), answer 200 `{"exitCode": 0|1, "out": [...], "err": [...]}` — the
// lines the command printed, exactly as the CLI prints them when it opens the database itself. 401 without the
// right secret (nothing runs), 404 elsewhere, 405 for another method, 400 for a body that is not a command, 413 over
// 64 KiB.
import { Effect, Layer, Option, Schema } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http"
import { join } from "node:path"
import { answerCommand, CommandAnswer } from "./commands.ts"
import { AdminSocketRefused } from "./errors.ts"

export const adminSocketFile = "admin.sock"
export const adminSecretFile = "admin.secret"
export const adminCommandPath = "/admin/command"
const bodyLimit = 64 * 1024
/** The longest path a Unix domain socket may have on Linux (sun_path: 108 bytes with the terminating NUL). */
const socketPathMaxBytes = 107

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

const errorCode = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined

/** Sets the umask to 0177 and answers the one it replaced; none in a worker thread, which may not set it (the chmod still does). */
const ownerOnlyUmask = (): number | undefined => {
  try {
    return process.umask(0o177)
  } catch {
    return undefined
  }
}

const CommandRequest = Schema.Struct({ argv: Schema.Array(Schema.String) })
const decodeRequest = Schema.decodeUnknownOption(Schema.fromJsonString(CommandRequest))
const decodeAnswer = Schema.decodeUnknownOption(Schema.fromJsonString(CommandAnswer))

const reply = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
  response.end(JSON.stringify(body))
}

/** The bearer of the request matches the secret whose SHA-256 is `secretHash`, compared in constant time. */
const authorized = (request: IncomingMessage, secretHash: Buffer) => {
  const header = request.headers.authorization ?? ""
  const presented = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : ""
  // Both sides are SHA-256 digests: equal lengths, so the comparison's time says nothing about the secret.
  return timingSafeEqual(sha256(presented), secretHash)
}

const readBody = (request: IncomingMessage) =>
  new Promise<string | "too_large">((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > bodyLimit) {
        resolve("too_large")
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/**
 * The admin socket of a server on the embedded database (`dataDir` is its data folder, whose lock this process
 * holds: a socket or secret left there by a crashed server is this server's to replace). Opened after the database,
 * closed (socket and secret file removed) when the server stops. A data folder whose path is too long for a socket
 * gets none: the server runs, and says so in its log.
 */
export const AdminSocket = (dataDir: string) =>
  Layer.effectDiscard(Effect.gen(function* () {
    const socketPath = join(dataDir, adminSocketFile)
    const secretPath = join(dataDir, adminSecretFile)
    if (Buffer.byteLength(socketPath) > socketPathMaxBytes) {
      yield* Effect.logWarning(`no admin socket: ${socketPath} is longer than a Unix socket path may be; the CLI cannot reach this server (choose a shorter ADGATE_DATA_DIR)`)
      return
    }
    const run = Effect.runPromiseWith(yield* Effect.context<Effect.Services<ReturnType<typeof answerCommand>>>())

    const handle = async (request: IncomingMessage, response: ServerResponse, secretHash: Buffer) => {
      // The secret first: without it nothing is read, run or told (not even which paths exist).
      if (!authorized(request, secretHash)) return reply(response, 401, { error: "unauthorized" })
      if (request.url !== adminCommandPath) return reply(response, 404, { error: "not_found" })
      if (request.method !== "POST") return reply(response, 405, { error: "method_not_allowed" })
      const body = await readBody(request)
      if (body === "too_large") return reply(response, 413, { error: "too_large" })
      const command = decodeRequest(body)
      if (Option.isNone(command)) return reply(response, 400, { error: "not a command: {\"argv\": [\"word\", …]}" })
      // In a scope of its own, as the CLI runs a command: run's context is the server's (its layer's scope included).
      reply(response, 200, await run(Effect.scoped(answerCommand(command.value.argv))))
    }

    const secretHash = yield* Effect.try({
      try: () => {
        const secret = randomBytes(32).toString("base64url")
        // A fresh secret each start, written before the socket exists: a CLI that finds the socket finds its secret.
        // Exclusive creation with mode 0600 (a file left by a crash is removed first, never written through).
        rmSync(secretPath, { force: true })
        writeFileSync(secretPath, secret + "\n", { mode: 0o600, flag: "wx" })
        rmSync(socketPath, { force: true })
        return sha256(secret)
      },
      catch: (cause) => new AdminSocketRefused({ message: `cannot write the admin secret ${secretPath}: ${String(errorCode(cause) ?? cause)}` })
    })
    yield* Effect.acquireRelease(
      Effect.callback<ReturnType<typeof createServer>, AdminSocketRefused>((resume) => {
        const server = createServer((request, response) => {
          handle(request, response, secretHash).catch(() => {
            if (!response.headersSent) reply(response, 500, { error: "failed" })
            else response.destroy()
          })
        })
        server.once("error", (cause) => resume(Effect.fail(new AdminSocketRefused({ message: `cannot open the admin socket ${socketPath}: ${cause.message}` }))))
        // The socket is created (bind) inside listen(), synchronously: under this umask it is born 0600, never
        // connectable by others for an instant; the chmod makes sure whatever the file system did.
        const umask = ownerOnlyUmask()
        try {
          server.listen(socketPath, () => {
            try {
              chmodSync(socketPath, 0o600)
              resume(Effect.succeed(server))
            } catch (cause) {
              server.close()
              resume(Effect.fail(new AdminSocketRefused({ message: `cannot make the admin socket ${socketPath} its owner's only: ${String(errorCode(cause) ?? cause)}` })))
            }
          })
        } finally {
          if (umask !== undefined) process.umask(umask)
        }
      }).pipe(Effect.tapError(() => Effect.sync(() => rmSync(secretPath, { force: true })))),
      (server) => Effect.promise(() => new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })).pipe(Effect.andThen(Effect.sync(() => {
        rmSync(socketPath, { force: true })
        rmSync(secretPath, { force: true })
      })))
    )
    yield* Effect.logInfo(`admin socket open at ${socketPath} (for npm run adgate)`)
  }))

/** Nobody answers on the socket: no server runs on this data folder (or one is starting or stopping). */
const nobody = Option.none<CommandAnswer>()

/**
 * Sends the command to the server running on `dataDir`, if one answers on its admin socket: its answer, or none when
 * no server answers there (no socket, a socket left by a crash, a server starting or stopping), so that the CLI
 * opens the database itself. Fails when a server is there but cannot be used: its secret unreadable by this user,
 * the secret refused, an answer not understood.
 */
export const sendToRunningServer = (dataDir: string, argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const socketPath = join(dataDir, adminSocketFile)
    const secretPath = join(dataDir, adminSecretFile)
    const notOwner = (cause: unknown, what: string) => new AdminSocketRefused({
      message: `${what} cannot be read (${String(errorCode(cause) ?? "unreadable")}): run the command as the user who owns the data folder ${dataDir}.`
    })
    const present = yield* Effect.try({ try: () => statSync(socketPath).isSocket(), catch: (cause) => cause }).pipe(
      Effect.catch((cause) => errorCode(cause) === "ENOENT" ? Effect.succeed(false) : Effect.fail(notOwner(cause, `The admin socket ${socketPath}`))))
    if (!present) return nobody
    const secret = yield* Effect.try({
      try: () => Option.some(readFileSync(secretPath, "utf8").trim()),
      catch: (cause) => cause
    }).pipe(Effect.catch((cause) => errorCode(cause) === "ENOENT"
      ? Effect.succeed(Option.none<string>())
      : Effect.fail(notOwner(cause, `A server is running on the data folder, but its admin secret ${secretPath}`))))
    if (Option.isNone(secret)) return nobody
    const body = JSON.stringify({ argv })
    const answered = yield* Effect.callback<Option.Option<{ readonly status: number; readonly text: string }>, AdminSocketRefused>((resume) => {
      const sent = request({
        socketPath, path: adminCommandPath, method: "POST", agent: false,
        headers: { authorization: `Bearer ${secret.value}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resume(Effect.succeed(Option.some({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))))
        response.on("error", (cause) => resume(Effect.fail(new AdminSocketRefused({ message: `The running server's answer broke off: ${cause.message}` }))))
      })
      sent.on("error", (cause) => {
        const code = errorCode(cause)
        // A socket nobody listens on (left by a crash) or gone meanwhile (the server stopped): no server answers.
        if (code === "ECONNREFUSED" || code === "ENOENT") resume(Effect.succeed(Option.none()))
        else resume(Effect.fail(new AdminSocketRefused({ message: `The running server's admin socket ${socketPath} failed: ${String(code ?? cause.message)}` })))
      })
      sent.end(body)
    })
    if (Option.isNone(answered)) return nobody
    const { status, text } = answered.value
    if (status === 401)
      return yield* new AdminSocketRefused({
        message: `The running server refused the admin secret in ${secretPath}: it changes at each start, so run the command again.`
      })
    const answer = status === 200 ? decodeAnswer(text) : Option.none()
    if (Option.isNone(answer)) return yield* new AdminSocketRefused({ message: `The running server answered the command with ${status}, not an answer the CLI understands.` })
    return answer
  })
