/**
 * Classifies an IP address for the SSRF guard. Only globally routable unicast addresses are "public"; everything a
 * server could use to reach itself, its network or its cloud provider's control plane is named, so that a refusal
 * can say why. IPv6 forms that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4) are judged by the
 * IPv4 address they carry, because that is where the packets end up.
 */
import ipaddr from "ipaddr.js"

export type AddressKind =
  | "public"
  | "cloudMetadata"
  | "unspecified"
  | "loopback"
  | "private"
  | "linkLocal"
  | "carrierGradeNat"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "benchmarking"
  | "documentation"
  | "uniqueLocal"
  | "siteLocal"
  | "teredo"
  | "invalid"

export interface AddressClass {
  readonly kind: AddressKind
  /** Why, in words, for error messages: "private address", "IPv4-mapped IPv6 address of 10.0.0.1 (private address)". */
  readonly description: string
}

const descriptions: Record<AddressKind, string> = {
  public: "public address",
  cloudMetadata: "cloud metadata address",
  unspecified: "unspecified address",
  loopback: "loopback address",
  private: "private address",
  linkLocal: "link-local address",
  carrierGradeNat: "carrier-grade NAT address",
  multicast: "multicast address",
  broadcast: "broadcast address",
  reserved: "reserved address",
  benchmarking: "benchmarking address",
  documentation: "documentation address",
  uniqueLocal: "unique local IPv6 address",
  siteLocal: "site-local IPv6 address",
  teredo: "Teredo tunnel address",
  invalid: "not an IP address",
}

const plain = (kind: AddressKind): AddressClass => ({ kind, description: descriptions[kind] })

type Range<A> = readonly [A, number, AddressKind]

const v4 = (cidr: string, kind: AddressKind): Range<ipaddr.IPv4> => {
  const [address, bits] = ipaddr.IPv4.parseCIDR(cidr)
  return [address, bits, kind]
}
const v6 = (cidr: string, kind: AddressKind): Range<ipaddr.IPv6> => {
  const [address, bits] = ipaddr.IPv6.parseCIDR(cidr)
  return [address, bits, kind]
}

// First match wins, so the narrow ranges (metadata endpoints, broadcast) come before the wide ones holding them.
const ipv4Ranges: ReadonlyArray<Range<ipaddr.IPv4>> = [
  v4("169.254.169.254/32", "cloudMetadata"), // AWS, GCP, Azure, OpenStack, Oracle...
  v4("169.254.170.2/32", "cloudMetadata"), // AWS ECS task metadata
  v4("100.100.100.200/32", "cloudMetadata"), // Alibaba Cloud
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrierGradeNat"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "linkLocal"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "reserved"), // IETF protocol assignments
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "reserved"), // deprecated 6to4 relay anycast
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("255.255.255.255/32", "broadcast"),
  v4("240.0.0.0/4", "reserved"),
]

const ipv6Ranges: ReadonlyArray<Range<ipaddr.IPv6>> = [
  v6("fd00:ec2::254/128", "cloudMetadata"), // AWS IMDS over IPv6
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("64:ff9b:1::/48", "reserved"), // local-use NAT64 prefix: translated by the operator's own gateway
  v6("100::/64", "reserved"), // discard-only
  v6("2001::/32", "teredo"),
  v6("2001:2::/48", "benchmarking"),
  v6("2001:db8::/32", "documentation"),
  v6("2001::/23", "reserved"), // IETF protocol assignments
  v6("3fff::/20", "documentation"),
  v6("fc00::/7", "uniqueLocal"),
  v6("fe80::/10", "linkLocal"),
  v6("fec0::/10", "siteLocal"),
  v6("ff00::/8", "multicast"),
]

const globalUnicast = ipaddr.IPv6.parseCIDR("2000::/3")

/** IPv6 prefixes whose bits carry an IPv4 destination: [network, prefix length, first byte of the IPv4, name]. */
const embeddingPrefixes: ReadonlyArray<readonly [ipaddr.IPv6, number, number, string]> = [
  [...ipaddr.IPv6.parseCIDR("::ffff:0:0/96"), 12, "IPv4-mapped IPv6 address"],
  [...ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96"), 12, "IPv4-translated IPv6 address"],
  [...ipaddr.IPv6.parseCIDR("64:ff9b::/96"), 12, "NAT64 address"],
  [...ipaddr.IPv6.parseCIDR("2002::/16"), 2, "6to4 address"],
  // Checked after :: and ::1 are ruled out by the range table.
  [...ipaddr.IPv6.parseCIDR("::/96"), 12, "IPv4-compatible IPv6 address"],
]

const classifyV4 = (address: ipaddr.IPv4): AddressClass => {
  for (const [network, bits, kind] of ipv4Ranges) if (address.match(network, bits)) return plain(kind)
  return plain("public")
}

const classifyV6 = (address: ipaddr.IPv6): AddressClass => {
  for (const [network, bits, kind] of ipv6Ranges) if (address.match(network, bits)) return plain(kind)
  const bytes = address.toByteArray()
  for (const [network, bits, offset, name] of embeddingPrefixes) {
    if (!address.match(network, bits)) continue
    const embedded = new ipaddr.IPv4(bytes.slice(offset, offset + 4))
    const inner = classifyV4(embedded)
    return inner.kind === "public"
      ? inner
      : { kind: inner.kind, description: `${name} of ${embedded.toString()} (${inner.description})` }
  }
  return address.match(...globalUnicast) ? plain("public") : plain("reserved")
}

/** Classifies an IPv4 or IPv6 address in any textual form `ipaddr.js` parses (a zone index `%eth0` is ignored). */
export const classifyAddress = (address: string): AddressClass => {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (!ipaddr.isValid(text)) return plain("invalid")
  const parsed = ipaddr.parse(text)
  return parsed.kind() === "ipv4" ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6)
}

/** Whether the address is globally routable unicast and not a cloud metadata endpoint. */
export const isPublicAddress = (address: string): boolean => classifyAddress(address).kind === "public"
