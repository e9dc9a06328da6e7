// A real SMTP server for tests (smtp-server), on 127.0.0.1: it accepts every message, parses it (mailparser) and
// keeps what arrived, with the links in its text, so a test reads the mail a person would get and can follow its
// links. Plain SMTP without STARTTLS or AUTH, as a local relay; `smtp://127.0.0.1:<port>` is its SMTP_URL. Used by
// apps/server's mail tests and by the browser suite.
import { simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"

export interface ReceivedMail {
  readonly from: string
  /** The envelope's recipients (RCPT TO). */
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  /** The HTML part, "" when the mail has none. */
  readonly html: string
  /** Every http(s) URL in the text, in order. */
  readonly links: ReadonlyArray<string>
  /** The raw message as it came over the wire (headers and body). */
  readonly raw: string
}

export interface SmtpTestServer {
  readonly port: number
  /** The SMTP_URL that delivers here. */
  readonly url: string
  /** Everything that arrived so far, oldest first. */
  readonly received: ReadonlyArray<ReceivedMail>
  /** The first mail (arrived or arriving) that `matches`, within `timeoutMs` (default 20 s); fails with what arrived. */
  readonly waitFor: (matches: (mail: ReceivedMail) => boolean, timeoutMs?: number) => Promise<ReceivedMail>
  /**
   * Refuses every message at DATA with this SMTP reply code (e.g. 451 "try again later", 554 "rejected") until
   * called with null; a refused message is not kept.
   */
  readonly refuseWith: (code: number | null) => void
  /** How many messages were refused so far. */
  readonly refused: () => number
  /** Stops listening and closes open connections. */
  readonly stop: () => Promise<void>
}

export const linksIn = (text: string): ReadonlyArray<string> => [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0])

/** Starts the server on `port` (default: a free one chosen by the system) and resolves once it listens. */
export const startSmtpTestServer = async (
  options: {
    readonly port?: number
    /**
     * Require AUTH (PLAIN or LOGIN, allowed without TLS on this local server) with this user name and password, as a
     * relay with credentials in SMTP_URL would; default: no AUTH.
     */
    readonly auth?: { readonly user: string; readonly pass: string }
  } = {}
): Promise<SmtpTestServer> => {
  const received: Array<ReceivedMail> = []
  let refusal: number | null = null
  let refusedCount = 0
  const auth = options.auth
  const server = new SMTPServer({
    authOptional: auth === undefined,
    disabledCommands: auth === undefined ? ["STARTTLS", "AUTH"] : ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(credentials, _session, callback) {
      if (auth !== undefined && credentials.username === auth.user && credentials.password === auth.pass) callback(null, { user: auth.user })
      else callback(new Error("invalid user name or password"))
    },
    logger: false,
    // Closing waits for nothing: a test that stops the server means it to be gone now.
    closeTimeout: 100,
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.on("end", () => {
        if (refusal !== null) {
          refusedCount++
          callback(Object.assign(new Error("refused by the test"), { responseCode: refusal }))
          return
        }
        const raw = Buffer.concat(chunks)
        simpleParser(raw).then((parsed) => {
          const text = parsed.text ?? ""
          received.push({
            from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? "",
            text,
            html: typeof parsed.html === "string" ? parsed.html : "",
            links: linksIn(text),
            raw: raw.toString("utf8")
          })
          callback()
        }, (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))))
      })
    }
  })
  const port = await new Promise<number>((resolve, reject) => {
    const listening = server.listen(options.port ?? 0, "127.0.0.1", () => {
      const address = listening.address()
      resolve(typeof address === "object" && address !== null ? address.port : 0)
    })
    listening.once("error", reject)
  })
  const waitFor = async (matches: (mail: ReceivedMail) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = received.find(matches)
      if (found !== undefined) return found
      if (Date.now() > deadline)
        throw new Error(`no matching mail arrived within ${timeoutMs} ms; arrived: ${JSON.stringify(received.map((m) => [m.to, m.subject]))}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    waitFor,
    refuseWith: (code) => { refusal = code },
    refused: () => refusedCount,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
