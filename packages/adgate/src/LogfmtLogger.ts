// The process's log output (README "Logs"): one logfmt line per event on stdout with exactly one `message=` key.
// Effect's logfmt writes one `message=` per logged value, so `logWarning("text", data)` would repeat the key (invalid
// logfmt); here the values are joined into the one message, and structured data belongs in annotations. Lines are
// buffered and written together, so that logging never blocks the event loop once per request.
import { type Duration, Effect, Formatter, Logger, References } from "effect"

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

/** Effect's logfmt of one message: what the fast path below must give, and what lines with a cause or spans get. */
const effectLogfmt = (options: Logger.Options<unknown>): string => Logger.formatLogFmt.log({ ...options, message: oneMessage(options.message) })

// The pieces of Logger.formatLogFmt (effect 4.1.0), which the fast path gives byte for byte: a value without white
// space, `"` or `=` as it is, anything else as a JSON string; a label with those characters replaced by `_`; values
// that are not strings through Formatter.format.
const bareValue = /^[^\s"=]*$/
const valueText = (value: string): string => (bareValue.test(value) ? value : JSON.stringify(value))
const formatted = (value: unknown): string => (typeof value === "string" ? value : Formatter.format(value, { space: 0 }))
/** Labels are annotation keys, a closed set of names in code: each is escaped once (bounded, as a guard). */
const labels = new Map<string, string>()
const labelText = (key: string): string => {
  let text = labels.get(key)
  if (text === undefined) {
    text = key.replace(/[\s="]/g, "_")
    if (labels.size < 1024) labels.set(key, text)
  }
  return text
}

/**
 * Formats like Logger.formatLogFmt, with the logged values as one message. The request line of every request comes
 * here: written directly (no closures, label escapes and regex matches per field), the line was ~10 % of a trivial
 * request's server CPU (bench/README.md, round 7b). A line with a cause or log spans (rare) is Effect's own.
 */
export const formatLogfmtOneMessage = Logger.make<unknown, string>((options) => {
  const spans = options.fiber.getRef(References.CurrentLogSpans)
  if (options.cause.reasons.length > 0 || spans.length > 0) return effectLogfmt(options)
  let out = `timestamp=${options.date.toISOString()} level=${options.logLevel.toUpperCase()} fiber=#${options.fiber.id} message=${valueText(oneMessage(options.message))}`
  const annotations = options.fiber.getRef(References.CurrentLogAnnotations)
  for (const label in annotations) {
    if (Object.hasOwn(annotations, label)) out += ` ${labelText(label)}=${valueText(formatted(annotations[label]))}`
  }
  return out
})

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
