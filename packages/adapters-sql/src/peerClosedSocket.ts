// The sockets of the PostgreSQL pool, retired the moment the other side closes them. A pooled connection learns that
// PostgreSQL (or a pooler, a proxy, a failover) closed it only from its socket's 'close' event, and Node emits that
// a few turns of the event loop after the end of the stream arrives ('end'): shutting down its own side first. A
// request that checks the connection out in between writes its statement into a socket that can no longer send
// ("This socket has been ended by the other party"), and answers 503 although the database is up and every other
// connection works (seen after a database outage: the first request once the database was back). Destroying the
// socket with an error on 'end' makes @effect/sql-pg retire the connection within the same turn, so the pool never
// hands it out. PostgreSQL's protocol never half-closes a connection, so an end from the other side always means
// the connection is over.
import { connect, type Socket } from "node:net"

/**
 * Where a connection URL points, as @effect/sql-pg reads it: a `host`/`port` parameter wins; a host that is a folder is
 * a Unix socket. Undefined for a URL it cannot read: @effect/sql-pg then refuses it with its own configuration error.
 */
export const connectionTarget = (url: string): { readonly host: string; readonly port: number; readonly path: string | undefined } | undefined => {
  if (!URL.canParse(url)) return undefined
  const parsed = new URL(url)
  let hostname: string
  try {
    hostname = parsed.hostname.startsWith("[") && parsed.hostname.endsWith("]")
      ? parsed.hostname.slice(1, -1)
      : decodeURIComponent(parsed.hostname)
  } catch {
    return undefined
  }
  const host = parsed.searchParams.get("host") ?? (hostname === "" ? "localhost" : hostname)
  const port = Number(parsed.searchParams.get("port") ?? (parsed.port === "" ? 5432 : parsed.port))
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined
  return { host, port, path: host.startsWith("/") ? `${host}/.s.PGSQL.${port}` : undefined }
}

/** A socket to `target` (no Nagle: a statement is one write, then a wait) that destroys itself when the other side ends it. */
export const peerClosedSocket = (target: NonNullable<ReturnType<typeof connectionTarget>>) => (): Socket => {
  const socket = target.path !== undefined
    ? connect({ path: target.path })
    : connect({ host: target.host, port: target.port, noDelay: true })
  socket.once("end", () => socket.destroy(new Error("the database closed the connection")))
  return socket
}
