// Which network addresses a client ID metadata document may be fetched from (spec §Authentication 4; CIMD §6.5,
// RFC 6890 special-use ranges): only public unicast addresses; loopback, private, link-local, CGNAT, unique-local,
// multicast, unspecified, broadcast, documentation, NAT64/6to4 and IPv4-mapped forms of any of them are refused.
import { BlockList, isIP } from "node:net"

const internal = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", includes the unspecified 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, includes broadcast 255.255.255.255
] as const) internal.addSubnet(network, prefix, "ipv4")
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated)
  ["::ffff:0:0:0", 96], // IPv4-translated (RFC 2765 SIIT); IPv4-mapped ::ffff:0:0/96 is judged as IPv4 below
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments, Teredo
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8] // multicast
] as const) internal.addSubnet(network, prefix, "ipv6")

const mappedIpv4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i
const mappedIpv4Hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) stands for, so that it is judged as IPv4. */
const unmapped = (address: string): string => {
  const dotted = mappedIpv4.exec(address)
  if (dotted?.[1] !== undefined) return dotted[1]
  const hex = mappedIpv4Hex.exec(address)
  if (hex?.[1] !== undefined && hex[2] !== undefined) {
    const high = parseInt(hex[1], 16)
    const low = parseInt(hex[2], 16)
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  }
  return address
}

/** Whether `address` (a literal IPv4 or IPv6 address) is a public unicast address a fetch may connect to. */
export const isPublicAddress = (address: string): boolean => {
  const plain = unmapped(address.toLowerCase())
  const family = isIP(plain)
  if (family === 4) return !internal.check(plain, "ipv4")
  if (family === 6) return !internal.check(plain, "ipv6")
  return false
}
