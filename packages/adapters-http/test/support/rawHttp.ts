// Raw HTTP on a fresh TCP connection, for what fetch and node:http cannot send or cannot show: repeated header fields,
// trailing whitespace, bytes after a request that no header framed, and whether the server ended the connection with
// a reset. Shared by the attack catalogue (REST and MCP), the fuzz findings and the server's lingering-close test.
import { connect } from "node:net"

/**
 * Writes `bytes` without ending the connection (as a client that sends its whole request before reading), reads until
 * the server closes, and answers the status of each answer read, the text after the first head, and whether the
 * connection ended in a reset.
 */
export const exchange = (
  origin: string,
  bytes: string | Uint8Array
): Promise<{ readonly statuses: ReadonlyArray<number>; readonly status: number; readonly body: string; readonly reset: boolean }> => {
  const url = new URL(origin)
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname)
    const chunks: Array<Buffer> = []
    let reset = false
    const timer = setTimeout(() => socket.destroy(new Error("the server never closed the connection")), 10_000)
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("error", (e: NodeJS.ErrnoException) => { reset = e.code === "ECONNRESET" || e.code === "EPIPE" })
    socket.on("close", () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString("utf8")
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]))
      resolve({ statuses, status: statuses[0] ?? 0, body: text.split("\r\n\r\n").slice(1).join("\r\n\r\n"), reset })
    })
    socket.on("connect", () => socket.write(bytes))
  })
}

/** An unsigned JWT (`alg` as `header` says, or none at all) for `audience`: never a credential here. */
export const unsignedJwt = (header: object, audience: string): string =>
  `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "admin", aud: audience, exp: 4_000_000_000 })).toString("base64url")}.`
