// The client's address as every rate limiter counts it (docs/limits.md): the socket's peer, or, when that peer is a
// trusted proxy (TRUSTED_PROXIES), the right-most X-Forwarded-For address that is not itself trusted — found by
// proxy-addr, the library Express uses. IPv6 clients are counted per /64, the block one subscriber usually holds.
// Pure, so that the server's configuration can check TRUSTED_PROXIES without loading the HTTP application.
import type { IncomingMessage } from "node:http"
import { Context } from "effect"
import ipaddr from "ipaddr.js"
import proxyAddr from "proxy-addr"

/** Addresses and CIDR ranges of the proxies in front of the service; empty (the default) trusts nobody. */
export const TrustedProxies = Context.Reference<ReadonlyArray<string>>("adapters-http/TrustedProxies", {
  defaultValue: () => []
})

export type ProxyTrust = (address: string, hop: number) => boolean

/** Compiles a TRUSTED_PROXIES list (`10.0.0.0/8`, `::1`, `loopback` …); throws a TypeError naming a bad entry. */
export const compileTrustedProxies = (list: ReadonlyArray<string>): ProxyTrust => proxyAddr.compile([...list])

/**
 * How an address is counted: IPv4 as is (also when written IPv4-mapped, `::ffff:192.0.2.1`), IPv6 as its /64
 * (`2001:db8:1:2::/64`): a single host can use every address of its /64, so counting per address would not limit it.
 */
export const countedAddress = (address: string): string => {
  const known = counted.get(address)
  if (known !== undefined) return known
  // A pure function of the text, and clients come back: remembered (up to countedCacheSize addresses, then forgotten
  // all at once), so that a request from a known address parses nothing (1–5 µs per request with ipaddr.js,
  // bench/README.md round 4). Only address-sized text is kept: a trusted proxy can forward any X-Forwarded-For text,
  // and the cache is bounded in bytes as well as in entries.
  if (counted.size >= countedCacheSize) counted.clear()
  const result = countAddress(address)
  if (address.length <= longestAddress) counted.set(address, result)
  return result
}

/** At most this many addresses are remembered. */
export const countedCacheSize = 4096
/** The longest text of an address: 45 characters for IPv6 with an IPv4 tail, and room for a zone (`%eth0`). */
const longestAddress = 64
const counted = new Map<string, string>()

/** How many addresses are remembered now: what the tests check stays bounded. */
export const rememberedAddresses = (): number => counted.size

const countAddress = (address: string): string => {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (!(parsed instanceof ipaddr.IPv6)) return parsed.toString()
  return `${new ipaddr.IPv6([...parsed.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`
}

/** The counted client address of a request whose socket peer is `peer`, given the proxies trusted. */
export const clientAddress = (peer: string | undefined, forwardedFor: string | undefined, trust: ProxyTrust): string => {
  if (peer === undefined) return "unknown"
  // Without X-Forwarded-For proxy-addr answers the peer whatever is trusted: nothing to parse (every direct request).
  if (forwardedFor === undefined) return countedAddress(peer)
  // proxy-addr reads only these two fields of Node's request; the Effect request is not a Node one in every runtime.
  const request = { headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }, socket: { remoteAddress: peer } }
  return countedAddress(proxyAddr(request as unknown as IncomingMessage, trust))
}
