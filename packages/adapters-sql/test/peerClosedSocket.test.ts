// The pool's sockets retire the moment the other side ends them (peerClosedSocket.ts): before, a request that checked
// out a connection between the end of its stream and Node's 'close' wrote into a socket that could no longer send and
// answered 503 with the database up (apps/server logSecrets: the first request after an outage, about one in seven
// under load). And the URL is read as @effect/sql-pg reads it.
import { assert, describe, it } from "vitest"
import { createServer, type Server } from "node:net"
import { connectionTarget, peerClosedSocket } from "../src/peerClosedSocket.ts"

const listen = (onConnection: Parameters<typeof createServer>[1]) =>
  new Promise<Server>((resolve) => {
    const server = createServer(onConnection)
    server.listen(0, "127.0.0.1", () => resolve(server))
  })

describe("the pool's sockets", () => {
  it("are destroyed, with an error, in the same turn as the other side's end arrives (never left writable-looking until 'close')", async () => {
    // The other side ends every connection at once, as PostgreSQL does after pg_terminate_backend or a pooler after its idle timeout.
    const server = await listen((peer) => peer.end())
    const port = (server.address() as { port: number }).port
    const socket = peerClosedSocket({ host: "127.0.0.1", port, path: undefined })()
    const seen: Array<string> = []
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()))
    socket.on("error", (e) => seen.push(`error: ${e.message}`))
    // Listeners run in the order they were added: this one runs after the socket's own.
    socket.on("end", () => seen.push(`end, destroyed: ${socket.destroyed}`))
    await closed
    server.close()
    assert.deepStrictEqual(seen, ["end, destroyed: true", "error: the database closed the connection"])
  })

  it("go where the URL says, as @effect/sql-pg reads it", () => {
    assert.deepStrictEqual(connectionTarget("postgres://u@db.internal:6432/adgate"), { host: "db.internal", port: 6432, path: undefined })
    assert.deepStrictEqual(connectionTarget("postgres://u@127.0.0.1/adgate"), { host: "127.0.0.1", port: 5432, path: undefined })
    assert.deepStrictEqual(connectionTarget("postgresql://u@[::1]:5433/adgate"), { host: "::1", port: 5433, path: undefined })
    assert.deepStrictEqual(connectionTarget("postgres:///adgate?host=/var/run/postgresql"),
      { host: "/var/run/postgresql", port: 5432, path: "/var/run/postgresql/.s.PGSQL.5432" })
    assert.deepStrictEqual(connectionTarget("postgres://u@x/adgate?host=10.0.0.5&port=7000"), { host: "10.0.0.5", port: 7000, path: undefined })
    // What it cannot read is left to @effect/sql-pg, which refuses it with its own configuration error.
    assert.isUndefined(connectionTarget("postgres://adgate:pw@[bad/adgate"))
    assert.isUndefined(connectionTarget("postgres://u@x/adgate?port=eighty"))
  })
})
