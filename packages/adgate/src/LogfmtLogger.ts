// The process's log output (README "Logs"): one logfmt line per event on stdout with exactly one `message=` key.
// Effect's logfmt writes one `message=` per logged value, so `logWarning("text", data)` would repeat the key (invalid
// logfmt); here the values are joined into the one message, and structured data belongs in annotations. Lines are
// buffered and written together, so that logging never blocks the event loop once per request.
import { type Duration, Effect, Logger } from "effect"

/** The logged values as one message text: strings as they are, anything else as compact JSON. */
export const oneMessage = (message: unknown): string => {
  const values = Array.isArray(message) ? message : [message]
  return values
    .map((value) => {
      if (typeof value === "string") return value
      try {
        return JSON.stringify(value) ?? String(value)
      } catch {
        return String(value)
      }
    })
    .join(" ")
}

/** Formats like Logger.formatLogFmt, with the logged values as one message. */
export const formatLogfmtOneMessage = Logger.make<unknown, string>((options) =>
  Logger.formatLogFmt.log({ ...options, message: oneMessage(options.message) }))

/**
 * logfmt lines handed to `write` together, one call per `window` with lines in it, and whatever is left when the
 * logger's scope closes (the server's last finalizer, on SIGTERM too): no line is lost, none waits longer than a window.
 */
export const bufferedLogfmt = (write: (text: string) => Effect.Effect<void>, window: Duration.Input) =>
  Logger.batched(formatLogfmtOneMessage, { window, flush: (lines) => write(lines.join("\n") + "\n") })

/**
 * One write per batch to stdout, finished before the next batch (or the process's exit) starts. A write of one line
 * per request was a synchronous system call each: ~11 % of the server's CPU on a refresh (bench/README.md).
 */
const writeStdout = (text: string) =>
  Effect.callback<void>((resume) => {
    process.stdout.write(text, () => resume(Effect.void))
  })

/** The logger layer of the server: logfmt lines on stdout, one message each, written every 50 ms. */
export const LogfmtLogger = Logger.layer([bufferedLogfmt(writeStdout, "50 millis")])
