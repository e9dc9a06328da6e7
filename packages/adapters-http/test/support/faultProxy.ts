// A TCP proxy in front of PostgreSQL that a fault test cuts and restores: cutting destroys every live socket (the
// server's pool loses all its connections at once, as when the database host goes away) and refuses new ones until
// restored. `cutOn(text)` cuts at the moment the server sends a statement containing `text` (PostgreSQL's protocol
// carries statement text in the clear), before it reaches the database: the fault lands in the middle of a request.
import { createServer, connect, type Server, type Socket } from "node:net"

export interface FaultProxy {
  /** The database URL through the proxy (same database, user and options as the target). */
  readonly url: string
  readonly cut: () => void
  readonly restore: () => void
  /** Cuts when the next statement containing `text` is sent; resolves once it fired. */
  readonly cutOn: (text: string) => Promise<void>
  /** Whether a `cutOn` is armed and has not fired yet. */
  readonly armed: () => boolean
  readonly close: () => Promise<void>
}

export const startFaultProxy = async (targetUrl: string): Promise<FaultProxy> => {
  const target = new URL(targetUrl)
  const sockets = new Set<Socket>()
  let down = false
  let trigger: { readonly text: Buffer; readonly fired: () => void } | null = null

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
    client.on("data", (chunk: Buffer) => {
      if (trigger !== null && chunk.includes(trigger.text)) {
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
    },
    cutOn: (text) => new Promise<void>((resolve) => { trigger = { text: Buffer.from(text), fired: resolve } }),
    armed: () => trigger !== null,
    close: () => {
      cut()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
