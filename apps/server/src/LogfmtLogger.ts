// The process's log output (README "Logs"): one logfmt line per event on stdout with exactly one `message=` key.
// Effect's logfmt writes one `message=` per logged value, so `logWarning("text", data)` would repeat the key (invalid
// logfmt); here the values are joined into the one message, and structured data belongs in annotations.
import { Logger } from "effect"

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

/** The logger layer of the server and the CLI: logfmt lines on the console, one message each. */
export const LogfmtLogger = Logger.layer([Logger.withConsoleLog(formatLogfmtOneMessage)])
