// Closing a connection without losing its last answer (RFC 9112 §9.6, Tear-down).
//
// Node's HTTP server answers bytes it cannot parse — the body of a GET, OPTIONS or DELETE sent without any
// Content-Length (so the body is read as the next request), a head past 16 KB, a malformed request line — with
// 400 or 431 and destroys the socket at once. Whatever the client is still sending then sits unread in the kernel,
// and closing a socket with unread bytes sends a TCP reset: the client's pending write fails, and the answer (the
// 400, or the answer of the request before those bytes, still in flight) is lost with it. That is the connection
// reset a body of ~30 KB or more that no route reads used to end in.
//
// Here such a connection closes in stages, as RFC 9112 §9.6 asks: the answer in flight (if any) is finished and
// marked the last one (`Connection: close`), else the error answer is written; then only our side is closed (FIN);
// what the client still sends is read and discarded (by the parser that failed, which keeps consuming the socket)
// until the client closes too, for at most `lingerMs` and `maxDiscardBytes`; only then is the socket destroyed.
import type { Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

export interface GentleCloseOptions {
  /** How long a closing connection keeps reading and discarding what the client still sends after our FIN. */
  readonly lingerMs: number
  /** How many bytes a closing connection discards at most; past them it is reset (a client that never stops). */
  readonly maxDiscardBytes: number
}

/**
 * 2 s is Apache httpd's lingering close (SECONDS_TO_LINGER): ample for a client on any network to read an answer
 * already sent and see our FIN. 1 MB is the request body limit: what a client may legitimately have in flight.
 */
export const defaultGentleClose: GentleCloseOptions = { lingerMs: 2_000, maxDiscardBytes: 1024 * 1024 }

/** Node's own answers to what its parser refuses, each marked the last on the connection. */
const answerFor = (code: string | undefined): string => {
  const [status, reason] = code === "HPE_HEADER_OVERFLOW"
    ? [431, "Request Header Fields Too Large"]
    : code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
    ? [413, "Payload Too Large"]
    : code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? [408, "Request Timeout"]
    : [400, "Bad Request"]
  return `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`
}

/** Sockets whose unparsable bytes were answered (or whose answer in flight was marked the last): bytes read then. */
const refused = new WeakMap<Socket, number>()

/** Half-closes `socket` and destroys it once the client closes too, or after the linger time. */
export const closeGently = (socket: Socket, options: GentleCloseOptions = defaultGentleClose): void => {
  if (socket.destroyed) return
  socket.end()
  const timer = setTimeout(() => socket.destroy(), options.lingerMs)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
  socket.once("end", () => socket.destroy())
}

/**
 * Replaces Node's answer to bytes its parser refuses (the server's `clientError`) by one that closes in stages. Every
 * later chunk of the same connection fails the parser again and comes here too: it is discarded, up to the limit.
 */
export const answerParseErrorsGently = (server: Server, options: GentleCloseOptions = defaultGentleClose): Server =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const since = refused.get(socket)
    if (since !== undefined) {
      if (socket.bytesRead - since > options.maxDiscardBytes) socket.destroy()
      return
    }
    refused.set(socket, socket.bytesRead)
    if (!socket.writable) {
      socket.destroy()
      return
    }
    const inFlight = (socket as Socket & { readonly _httpMessage?: ServerResponse | null })._httpMessage
    // The refusal came while the request's body was still arriving (the request timed out, the client closed its side
    // mid-body, the body's framing was refused): the rest of the body is not coming, and an answer waiting for it would
    // wait until the client left. Node's answer now when none has started (408 at the timeout), then the request is
    // ended, so that whatever reads its body stops (its fiber fails, the direct route logs 499), and the socket with it.
    if (inFlight != null && !inFlight.req.complete) {
      const request = inFlight.req
      if (inFlight.headersSent) return void socket.destroy()
      socket.write(answerFor(error.code))
      request.destroy()
      return closeGently(socket, options)
    }
    if (inFlight != null && !inFlight.writableFinished) {
      // The request before the refused bytes is still being answered: its answer is the connection's last. Prepended,
      // so it runs before Node's own `finish` listener, which would destroy the socket (`_last`) with bytes unread.
      if (!inFlight.headersSent) inFlight.shouldKeepAlive = false
      inFlight.prependOnceListener("finish", () => {
        ;(inFlight as ServerResponse & { _last: boolean })._last = false
        closeGently(socket, options)
      })
      return
    }
    socket.write(answerFor(error.code))
    closeGently(socket, options)
  })
