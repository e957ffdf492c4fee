import { describe, expect, it } from "vitest"
import { type AddressKind, classifyAddress, isPublicAddress } from "../../src/Net/AddressClass.js"

// Pure classification: no address here is ever connected to.
const table: ReadonlyArray<readonly [string, AddressKind]> = [
  // public
  ["1.1.1.1", "public"],
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["2606:4700::1111", "public"],
  ["2a00:1450:4001:82a::200e", "public"],
  ["::ffff:1.1.1.1", "public"],
  ["64:ff9b::808:808", "public"], // NAT64 of 8.8.8.8
  ["2002:0808:0808::1", "public"], // 6to4 of 8.8.8.8
  // cloud metadata
  ["169.254.169.254", "cloudMetadata"],
  ["169.254.170.2", "cloudMetadata"],
  ["100.100.100.200", "cloudMetadata"],
  ["fd00:ec2::254", "cloudMetadata"],
  ["::ffff:169.254.169.254", "cloudMetadata"],
  // IPv4 special ranges
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.1.1", "linkLocal"],
  ["100.64.0.1", "carrierGradeNat"],
  ["100.127.255.254", "carrierGradeNat"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.88.99.1", "reserved"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["192.0.2.1", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  // IPv6 special ranges
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fc00::1", "uniqueLocal"],
  ["fd12:3456:789a::1", "uniqueLocal"],
  ["fe80::1", "linkLocal"],
  ["fe80::1%eth0", "linkLocal"],
  ["fec0::1", "siteLocal"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
  ["100::1", "reserved"],
  ["64:ff9b:1::a00:1", "reserved"],
  ["4000::1", "reserved"], // outside 2000::/3, unallocated
  // IPv6 forms carrying a non-public IPv4 address
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::127.0.0.1", "loopback"], // IPv4-compatible
  ["::10.0.0.1", "private"],
  ["::ffff:0:192.168.0.1", "private"], // IPv4-translated
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "cloudMetadata"],
  ["64:ff9b::10.0.0.1", "private"],
  ["2002:7f00:0001::1", "loopback"],
  ["2002:c0a8:0101::1", "private"],
  ["2002:a9fe:a9fe::", "cloudMetadata"],
  // not addresses at all
  ["example.com", "invalid"],
  ["", "invalid"],
  ["1.2.3.4.5", "invalid"],
]

describe("classifyAddress", () => {
  it.each(table)("%s is %s", (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind)
    expect(isPublicAddress(address)).toBe(kind === "public")
  })

  it("names the IPv4 address an IPv6 form carries", () => {
    expect(classifyAddress("::ffff:10.0.0.1").description).toBe(
      "IPv4-mapped IPv6 address of 10.0.0.1 (private address)",
    )
    expect(classifyAddress("2002:7f00:1::").description).toBe("6to4 address of 127.0.0.1 (loopback address)")
    expect(classifyAddress("64:ff9b::a9fe:a9fe").description).toBe(
      "NAT64 address of 169.254.169.254 (cloud metadata address)",
    )
  })

  it("accepts bracketed IPv6 literals as URL hosts spell them", () => {
    expect(classifyAddress("[::1]").kind).toBe("loopback")
  })
})
