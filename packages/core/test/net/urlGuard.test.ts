import type { LookupAddress } from "node:dns"
import { connect } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import { ScrapeError } from "../../src/Errors.js"
import { layerConfig, make, type Resolver, UrlGuard, type UrlGuardOptions } from "../../src/Net/UrlGuard.js"
import { start } from "../support/hostileServer.js"

/** A fake DNS: no query leaves the process, and every call is recorded. */
const fakeDns = (records: Record<string, ReadonlyArray<string>>) => {
  const calls: Array<string> = []
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname)
    const addresses = records[hostname]
    if (addresses === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  return { resolver, calls }
}

const dns = fakeDns({
  "evil.test": ["10.0.0.1"],
  "rebind.test": ["93.184.216.34", "127.0.0.1"],
  "meta.test": ["169.254.169.254"],
  "meta6.test": ["fd00:ec2::254"],
  "mapped.test": ["::ffff:192.168.0.1"],
  "public.test": ["93.184.216.34", "2606:4700::1111"],
  "empty.test": [],
  "a.corp.test": ["10.1.1.1"],
  "corp.test": ["10.1.1.2"],
  "evilcorp.test": ["10.1.1.3"],
  "local.test": ["127.0.0.1"],
  "other-loopback.test": ["127.0.0.2"],
  "localhost.test": ["127.0.0.1", "::1"],
})

const guard = (options: Partial<UrlGuardOptions> = {}) =>
  make({ allowPrivateAddresses: false, allow: [], resolver: dns.resolver, ...options })

const failure = <A>(effect: Effect.Effect<A, ScrapeError>): Effect.Effect<ScrapeError> =>
  Effect.flip(effect).pipe(
    Effect.orDieWith(() => new Error("expected the guard to refuse")),
    Effect.tap((error) => expect(error).toBeInstanceOf(ScrapeError)),
  )

/** Calls the guard's `lookup` as `net.connect` does, and returns what its callback got. */
const lookupWith = (hostname: string, options: { all?: boolean; family?: number }, service = guard()) =>
  new Promise<{ error: Error | null; address: string | ReadonlyArray<LookupAddress>; family?: number | undefined }>(
    (resolve) => service.lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  )

describe("UrlGuard.checkUrl", () => {
  it.effect.each([
    "file:///etc/passwd",
    "ftp://example.com/",
    "gopher://example.com/",
    "data:text/html,hi",
    "javascript:alert(1)",
  ])("refuses the scheme of %s", (url) =>
    Effect.gen(function* () {
      const error = yield* failure(guard().checkUrl(url))
      expect(error.reason).toBe("BlockedAddress")
      expect(error.message).toContain("only http and https")
    }),
  )

  it.effect.each([
    ["http://127.0.0.1/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://017700000001/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://0/", "0.0.0.0"],
    ["http://0x0a000001/", "10.0.0.1"],
    ["http://[::1]/", "::1"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
    ["http://[::ffff:a9fe:a9fe]/latest/meta-data/", "::ffff:a9fe:a9fe"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
    ["http://[fd00:ec2::254]/", "fd00:ec2::254"],
    ["http://100.100.100.200/", "100.100.100.200"],
    ["https://192.168.0.1:8443/admin", "192.168.0.1"],
  ])("refuses the IP literal in %s (%s) without DNS", ([url, address]) =>
    Effect.gen(function* () {
      const before = dns.calls.length
      const error = yield* failure(guard().checkUrl(url!))
      expect(error.reason).toBe("BlockedAddress")
      expect(error.message).toContain(`Refusing to connect to ${address} (`)
      expect(dns.calls.length).toBe(before)
    }),
  )

  it.effect("says why in the message", () =>
    Effect.gen(function* () {
      const error = yield* failure(guard().checkUrl("http://169.254.169.254/"))
      expect(error.message).toBe(
        'Refusing to connect to 169.254.169.254 (cloud metadata address) for host "169.254.169.254"',
      )
      expect(error.url).toBe("http://169.254.169.254/")
    }),
  )

  it.effect("lets public literals and host names through (names are checked at lookup)", () =>
    Effect.gen(function* () {
      expect((yield* guard().checkUrl("http://1.1.1.1/x")).href).toBe("http://1.1.1.1/x")
      expect((yield* guard().checkUrl("https://[2606:4700::1111]/")).hostname).toBe("[2606:4700::1111]")
      expect((yield* guard().checkUrl("https://evil.test/")).hostname).toBe("evil.test")
    }),
  )

  it.effect("refuses what is not a URL", () =>
    Effect.gen(function* () {
      expect((yield* failure(guard().checkUrl("not a url"))).reason).toBe("BlockedAddress")
    }),
  )
})

describe("UrlGuard resolve-then-check", () => {
  it.effect.each([
    ["evil.test", 'Refusing to connect to 10.0.0.1 (private address) for host "evil.test"'],
    ["rebind.test", 'Refusing to connect to 127.0.0.1 (loopback address) for host "rebind.test"'],
    ["meta.test", 'Refusing to connect to 169.254.169.254 (cloud metadata address) for host "meta.test"'],
    ["meta6.test", 'Refusing to connect to fd00:ec2::254 (cloud metadata address) for host "meta6.test"'],
    [
      "mapped.test",
      'Refusing to connect to ::ffff:192.168.0.1 (IPv4-mapped IPv6 address of 192.168.0.1 (private address)) for host "mapped.test"',
    ],
    ["localhost.test", 'Refusing to connect to 127.0.0.1 (loopback address) for host "localhost.test"'],
  ])("refuses %s", ([host, message]) =>
    Effect.gen(function* () {
      const error = yield* failure(guard().resolveHost(host!))
      expect(error.reason).toBe("BlockedAddress")
      expect(error.message).toBe(message)
    }),
  )

  it.effect("returns every address of a public host", () =>
    Effect.gen(function* () {
      const addresses = yield* guard().resolveHost("public.test")
      expect(addresses.map((entry) => entry.address)).toEqual(["93.184.216.34", "2606:4700::1111"])
    }),
  )

  it.effect("reports hosts that do not resolve as DnsResolution", () =>
    Effect.gen(function* () {
      const missing = yield* failure(guard().resolveHost("missing.test"))
      expect(missing.reason).toBe("DnsResolution")
      expect(missing.message).toBe('Could not resolve host "missing.test" (ENOTFOUND)')
      expect((yield* failure(guard().resolveHost("empty.test"))).reason).toBe("DnsResolution")
    }),
  )

  it.effect("checkTarget runs both checks and names the URL", () =>
    Effect.gen(function* () {
      const error = yield* failure(guard().checkTarget("https://meta.test/latest"))
      expect(error.reason).toBe("BlockedAddress")
      expect(error.url).toBe("https://meta.test/latest")
      expect((yield* guard().checkTarget("https://public.test/")).host).toBe("public.test")
    }),
  )
})

describe("UrlGuard.lookup (for net.connect / undici connect.lookup)", () => {
  it("hands back the checked addresses, all or the first, and filters by family", async () => {
    const all = await lookupWith("public.test", { all: true })
    expect(all.error).toBeNull()
    expect(all.address).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:4700::1111", family: 6 },
    ])
    const one = await lookupWith("public.test", {})
    expect([one.address, one.family]).toEqual(["93.184.216.34", 4])
    const six = await lookupWith("public.test", { family: 6 })
    expect([six.address, six.family]).toEqual(["2606:4700::1111", 6])
  })

  it("resolves once per lookup and refuses when any address is not allowed", async () => {
    const before = dns.calls.length
    const refused = await lookupWith("rebind.test", { all: true })
    expect(dns.calls.length).toBe(before + 1)
    expect(refused.error).toBeInstanceOf(ScrapeError)
    expect((refused.error as ScrapeError).reason).toBe("BlockedAddress")
    const unknown = await lookupWith("missing.test", {})
    expect((unknown.error as ScrapeError).reason).toBe("DnsResolution")
  })

  it("pins net.connect to the checked address and refuses before connecting", async () => {
    const allowed = await start("127.0.0.1")
    const canary = await start("127.0.0.2")
    try {
      const service = guard({ allow: ["127.0.0.1/32"] })
      const reach = (host: string, port: number) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect({ host, port, lookup: service.lookup })
          socket.on("connect", () => {
            resolve(socket.remoteAddress ?? "")
            socket.destroy()
          })
          socket.on("error", reject)
        })
      expect(await reach("local.test", allowed.port)).toBe("127.0.0.1")
      const error = await reach("other-loopback.test", canary.port).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ScrapeError)
      expect((error as ScrapeError).message).toBe(
        'Refusing to connect to 127.0.0.2 (loopback address) for host "other-loopback.test"',
      )
      expect(canary.connections()).toBe(0)
    } finally {
      await allowed.close()
      await canary.close()
    }
  })
})

describe("UrlGuard allow-list and switches", () => {
  it.effect("allows host names exactly or by *.suffix", () =>
    Effect.gen(function* () {
      const service = guard({ allow: ["Evil.Test.", "*.corp.test"] })
      yield* service.resolveHost("evil.test")
      yield* service.checkUrl("http://evil.test/")
      yield* service.resolveHost("a.corp.test")
      expect((yield* failure(service.resolveHost("corp.test"))).reason).toBe("BlockedAddress")
      expect((yield* failure(service.resolveHost("evilcorp.test"))).reason).toBe("BlockedAddress")
    }),
  )

  it.effect("allows CIDRs and single addresses, v4 and v6, and only those", () =>
    Effect.gen(function* () {
      const service = guard({ allow: ["10.0.0.0/8", "fd00::/8", "127.0.0.1"] })
      yield* service.resolveHost("evil.test")
      yield* service.resolveHost("meta6.test")
      yield* service.checkUrl("http://[fd00:ec2::254]/")
      yield* service.checkUrl("http://127.0.0.1:8080/")
      yield* service.checkUrl("http://[::ffff:127.0.0.1]/") // the mapped form of an allowed address
      expect((yield* failure(service.checkUrl("http://127.0.0.2/"))).reason).toBe("BlockedAddress")
      expect((yield* failure(service.resolveHost("meta.test"))).reason).toBe("BlockedAddress")
      // localhost.test also resolves to ::1, which is not allowed: ANY refused address refuses the host.
      expect((yield* failure(service.resolveHost("localhost.test"))).message).toContain("::1 (loopback address)")
    }),
  )

  it.effect("allowPrivateAddresses turns the address checks off but keeps the scheme check", () =>
    Effect.gen(function* () {
      const service = guard({ allowPrivateAddresses: true })
      yield* service.checkUrl("http://169.254.169.254/")
      yield* service.resolveHost("rebind.test")
      expect((yield* failure(service.checkUrl("file:///etc/passwd"))).reason).toBe("BlockedAddress")
      expect((yield* failure(service.resolveHost("missing.test"))).reason).toBe("DnsResolution")
    }),
  )

  it("rejects a malformed CIDR at construction", () => {
    expect(() => guard({ allow: ["10.0.0.0/33"] })).toThrow(
      'Invalid CIDR in the URL guard\'s allow-list: "10.0.0.0/33"',
    )
  })

  const fromEnv = (env: Record<string, string>) =>
    Effect.gen(function* () {
      const service = yield* UrlGuard
      return yield* Effect.exit(service.checkUrl("http://10.1.2.3/"))
    }).pipe(
      Effect.provide(layerConfig),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    )

  it.effect("layerConfig reads WEBDATA_ALLOW_PRIVATE_ADDRESSES and WEBDATA_ALLOWED_TARGETS (guard on by default)", () =>
    Effect.gen(function* () {
      expect(Exit.isFailure(yield* fromEnv({}))).toBe(true)
      expect(Exit.isSuccess(yield* fromEnv({ WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1" }))).toBe(true)
      expect(Exit.isSuccess(yield* fromEnv({ WEBDATA_ALLOW_PRIVATE_ADDRESSES: "true" }))).toBe(true)
      expect(Exit.isFailure(yield* fromEnv({ WEBDATA_ALLOW_PRIVATE_ADDRESSES: "0" }))).toBe(true)
      expect(Exit.isSuccess(yield* fromEnv({ WEBDATA_ALLOWED_TARGETS: "example.org, 10.1.0.0/16" }))).toBe(true)
      expect(Exit.isFailure(yield* fromEnv({ WEBDATA_ALLOWED_TARGETS: "10.2.0.0/16" }))).toBe(true)
    }),
  )
})
