// A TCP proxy in front of PostgreSQL that a fault test cuts and restores: cutting destroys every live socket (the
// server's pool loses all its connections at once, as when the database host goes away) and refuses new ones until
// restored. `cutOn(text)` cuts at the moment the server sends a statement containing `text` (PostgreSQL's protocol
// carries statement text in the clear; a prepared statement run again is known by its name), before it reaches the
// database: the fault lands in the middle of a request. `holdOn(text)` instead stops that one connection there, the
// statement never sent and nothing more forwarded on it, with everything else flowing: the moment a test kills the
// server process (SIGKILL) with that statement on its way, its transaction open.
import { createServer, connect, type Server, type Socket } from "node:net"

export interface FaultProxy {
  /** The database URL through the proxy (same database, user and options as the target). */
  readonly url: string
  readonly cut: () => void
  readonly restore: () => void
  /** Cuts when the next statement containing `text` is sent; resolves once it fired. */
  readonly cutOn: (text: string) => Promise<void>
  /** Whether a `cutOn` or `holdOn` is armed and has not fired yet. */
  readonly armed: () => boolean
  /**
   * Holds the connection that sends the next statement containing `text`: that chunk and all later traffic from it
   * are never forwarded (the database sees an idle transaction); resolves once it fired. `restore` clears it.
   */
  readonly holdOn: (text: string) => Promise<void>
  readonly close: () => Promise<void>
}

export const startFaultProxy = async (targetUrl: string): Promise<FaultProxy> => {
  const target = new URL(targetUrl)
  const sockets = new Set<Socket>()
  let down = false
  let trigger: { readonly text: string; readonly fired: () => void } | null = null
  let holding: { readonly text: string; readonly fired: () => void } | null = null

  const cut = () => {
    down = true
    for (const socket of sockets) socket.destroy()
    sockets.clear()
  }
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy()
      return
    }
    const upstream = connect(Number(target.port || 5432), target.hostname)
    sockets.add(client)
    sockets.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    const reader = statementReader()
    let held = false
    client.on("data", (chunk: Buffer) => {
      if (held) return
      const statements = reader(chunk)
      if (holding !== null && statements.some((text) => text.includes(holding!.text))) {
        const fired = holding.fired
        holding = null
        held = true
        fired()
        return
      }
      if (trigger !== null && statements.some((text) => text.includes(trigger!.text))) {
        const fired = trigger.fired
        trigger = null
        cut()
        fired()
        return
      }
      upstream.write(chunk)
    })
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("expected a TCP address")
  const url = new URL(targetUrl)
  url.hostname = "127.0.0.1"
  url.port = String(address.port)

  return {
    url: url.toString(),
    cut,
    restore: () => {
      down = false
      trigger = null
      holding = null
    },
    cutOn: (text) => new Promise<void>((resolve) => { trigger = { text, fired: resolve } }),
    armed: () => trigger !== null || holding !== null,
    holdOn: (text) => new Promise<void>((resolve) => { holding = { text, fired: resolve } }),
    close: () => {
      cut()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/**
 * Reads one connection's client-to-server stream of PostgreSQL frontend messages (protocol 3) and answers, for each
 * chunk, the text of every statement the complete messages in it run: a simple Query, a Parse, or a Bind of a
 * statement parsed earlier on the connection (drivers cache prepared statements, so a repeat sends only its name).
 */
const statementReader = () => {
  let pending = Buffer.alloc(0)
  let startup = true
  const prepared = new Map<string, string>()
  const cString = (buffer: Buffer, at: number): [string, number] => {
    const end = buffer.indexOf(0, at)
    return end < 0 ? ["", buffer.length] : [buffer.toString("utf8", at, end), end + 1]
  }
  return (chunk: Buffer): ReadonlyArray<string> => {
    pending = Buffer.concat([pending, chunk])
    const statements: Array<string> = []
    for (;;) {
      if (startup) {
        // The untyped startup packet (or an SSL/GSS request, after which the startup packet follows).
        if (pending.length < 8) break
        const length = pending.readInt32BE(0)
        if (pending.length < length) break
        const code = pending.readInt32BE(4)
        if (code !== 80877103 && code !== 80877104) startup = false
        pending = pending.subarray(length)
        continue
      }
      if (pending.length < 5) break
      const type = String.fromCharCode(pending[0]!)
      const length = pending.readInt32BE(1)
      if (pending.length < 1 + length) break
      const body = pending.subarray(5, 1 + length)
      pending = pending.subarray(1 + length)
      if (type === "Q") statements.push(cString(body, 0)[0])
      else if (type === "P") {
        const [name, next] = cString(body, 0)
        const [query] = cString(body, next)
        if (name !== "") prepared.set(name, query)
        statements.push(query)
      } else if (type === "B") {
        const [, next] = cString(body, 0)
        const [name] = cString(body, next)
        statements.push(prepared.get(name) ?? "")
      }
    }
    return statements
  }
}
