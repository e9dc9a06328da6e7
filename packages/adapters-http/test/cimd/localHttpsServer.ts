// A local https server for tests of metadata-document fetching: a throwaway self-signed certificate made with the
// machine's openssl for the test names, trusted only by the fetcher under test (its `extraCa` option).
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { IncomingMessage, ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface TestCertificate {
  readonly key: string
  readonly cert: string
}

let cached: TestCertificate | undefined

/** A self-signed certificate for cimd.test, *.cimd.test and localhost, made once per test process. */
export const testCertificate = (): TestCertificate => {
  if (cached !== undefined) return cached
  const dir = mkdtempSync(join(tmpdir(), "adgate-cert-"))
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2", "-subj", "/CN=cimd.test",
      "-addext", "subjectAltName=DNS:cimd.test,DNS:*.cimd.test,DNS:localhost",
      "-addext", "basicConstraints=critical,CA:TRUE"
    ], { stdio: "ignore" })
    cached = { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
    return cached
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface LocalHttpsServer {
  readonly port: number
  /** Requests received, by path: proves that a refused fetch never connected. */
  readonly hits: Array<string>
  readonly close: () => Promise<void>
}

export const startLocalHttpsServer = async (
  handler: (req: IncomingMessage, res: ServerResponse) => void
): Promise<LocalHttpsServer> => {
  const { key, cert } = testCertificate()
  const hits: Array<string> = []
  const server: Server = createServer({ key, cert }, (req, res) => {
    hits.push(req.url ?? "")
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
