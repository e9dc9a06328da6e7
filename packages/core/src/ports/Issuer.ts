// The service's own origin: the issuer identifier of the authorization server (RFC 8414 §2, RFC 9207) and the
// base of the protected resources `{issuer}/api/mcp` and `{issuer}/api/v1`.
import { Context, Layer } from "effect"

export class Issuer extends Context.Service<Issuer, { readonly origin: string }>()("core/ports/Issuer") {
  static readonly layer = (origin: string) => Layer.succeed(Issuer, Issuer.of({ origin: origin.replace(/\/+$/, "") }))
}
