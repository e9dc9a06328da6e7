// answerParseErrorsGently (src/gentleClose.ts) against a client that sends a request's body too slowly: Node's request
// timeout must still end the request with its 408 and close the connection, whether or not a handler is waiting for
// the body (it was: the answer waited for the body's end, and the connection stayed open until the client left).
import { createServer, type Server } from "node:http"
import { connect } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { answerParseErrorsGently } from "../src/gentleClose.ts"

let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => {
  server?.closeAllConnections()
  server === undefined ? resolve() : server.close(() => resolve())
}))

/** A server whose handler reads the whole body before answering, with a request timeout of 500 ms checked every 100 ms. */
const listening = (): Promise<number> => {
  server = answerParseErrorsGently(createServer({ requestTimeout: 500, connectionsCheckingInterval: 100 }, (request, response) => {
    request.resume()
    request.on("end", () => response.end("read"))
  }))
  return new Promise((resolve) => server!.listen(0, "127.0.0.1", () => resolve((server!.address() as { port: number }).port)))
}

/** Sends the head and `sent` bytes of a 10-byte body, then nothing; answers what came back and when the connection closed. */
const stalled = (port: number, sent: string) =>
  new Promise<{ readonly text: string; readonly closedAfterMs: number }>((resolve) => {
    const started = Date.now()
    const socket = connect(port, "127.0.0.1")
    const chunks: Array<Buffer> = []
    const giveUp = setTimeout(() => socket.destroy(), 8_000)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => {})
    // A client that reads our FIN ends its side too.
    socket.on("end", () => socket.end())
    socket.on("close", () => {
      clearTimeout(giveUp)
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closedAfterMs: Date.now() - started })
    })
    socket.on("connect", () => socket.write(`POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n${sent}`))
  })

describe("a request whose body stops arriving", () => {
  it("is answered 408 at the request timeout and its connection closed, with a handler waiting for the body", async () => {
    const port = await listening()
    const answer = await stalled(port, "abc")
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\nConnection: close\r\n/)
    expect(answer.closedAfterMs).toBeLessThan(5_000)
  })

  it("and so is one with no body byte yet", async () => {
    const port = await listening()
    const answer = await stalled(port, "")
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /)
    expect(answer.closedAfterMs).toBeLessThan(5_000)
  })
})

describe("a client that closes its side in the middle of a body", () => {
  it("ends the request at once: its reader sees the end, and the connection closes", async () => {
    let ended = false
    server = answerParseErrorsGently(createServer((request) => {
      request.resume()
      request.on("close", () => { ended = !request.complete })
    }))
    const port = await new Promise<number>((resolve) => server!.listen(0, "127.0.0.1", () => resolve((server!.address() as { port: number }).port)))
    const closedAfterMs = await new Promise<number>((resolve) => {
      const started = Date.now()
      const socket = connect(port, "127.0.0.1")
      socket.on("error", () => {})
      // Read, as a client does: a socket nobody reads never sees the server's FIN.
      socket.resume()
      socket.on("close", () => resolve(Date.now() - started))
      socket.on("connect", () => socket.end("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"))
    })
    expect(closedAfterMs).toBeLessThan(4_000)
    await expect.poll(() => ended).toBe(true)
  })
})
