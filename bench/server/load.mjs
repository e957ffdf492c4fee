/**
 * Load: throughput and latency of the server as `npm start` runs it, under a real load generator (autocannon, 32
 * connections), against the framework-free floor (`floor.mjs`) in the same run. Run: `npm run load -w @webdata/bench`.
 *
 * Each server is a child process on the compiled packages, pinned to one core (`taskset -c 1`, when present): webdata
 * as `npm start` runs it (its defaults: a SQLite store in a temporary folder, content threads as many as that one core
 * allows; the heap flags of its start command), the floor on Node's defaults. The 100 KB page (the overhead
 * benchmark's synthetic article) comes from a fixture process on the other core, where this process (autocannon) runs
 * too. Lanes, each DURATION seconds (default 10), interleaved for ROUNDS rounds (default 3): status reads
 * (`GET /v2/crawl/{id}` of a finished one-page crawl) on the floor then on webdata, then `POST /v2/scrape`
 * (`maxAge: 0`: every request fetches) on the floor then on webdata.
 *
 * Besides what autocannon sees, each lane reports the server's CPU time per answered request (from /proc): on a
 * machine whose cores are shared with other work, the throughput a core of its own would give is 1000 / that.
 *
 * Latency is reported twice: over every request of the lane (autocannon's p50/p99), and over the requests sent on
 * connections already open (each connection's first request left out). A lane opens its 32 connections at once, and
 * Node's event loop accepts one connection per turn (libuv since 1.45), so on a busy server the last first request
 * waits 32 turns: that ramp, common to every Node server here (the floor included), is the whole-lane p99. The
 * p99/p50 target is read on open connections; both are printed.
 *
 * LANES=status or LANES=scrape measures one pair only. PROFILE=1 runs webdata with `--cpu-prof` and prints where its
 * busy time in the measured lanes went (self time by package, then by function), from the profile it writes when it
 * stops.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import autocannon from "autocannon"

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const DURATION = Number(process.env.DURATION ?? 10)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32)
const PROFILE = process.env.PROFILE === "1"

const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
// The load generator and the fixture on core 0, the server measured alone on core 1.
if (hasTaskset) execFileSync("taskset", ["-p", "-c", "0", String(process.pid)], { stdio: "ignore" })

const folder = mkdtempSync(join(tmpdir(), "webdata-bench-load-"))

/** `script` as a child process pinned to `core`, with `env`; resolves with its URL once it prints it. */
const start = async (script, env, { core, flags = [] }) => {
  const command = hasTaskset ? "taskset" : process.execPath
  const args = [...(hasTaskset ? ["-c", String(core), process.execPath] : []), ...flags, script]
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] })
  const url = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited with code ${code}`)))
    let output = ""
    const read = (chunk) => {
      output += chunk
      const match = /listening on (\S+)/.exec(output)
      if (match === null) return
      // Later lines (a server's log line per request) are drained unread: parsing them would load the client's core.
      child.stdout.off("data", read).resume()
      resolve(match[1])
    }
    child.stdout.setEncoding("utf8").on("data", read)
  })
  const close = async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
  return { url, close, pid: child.pid }
}

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim())

/** CPU seconds `pid` has used (user + system, every thread): what a lane costs, whatever else shares the core. */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
}

const path = (relative) => new URL(relative, import.meta.url).pathname
/** Node's flags in `npm start` (the root package.json's script), so that the server runs here as it runs there. */
const startFlags = (() => {
  const { scripts } = JSON.parse(readFileSync(path("../../package.json"), "utf8"))
  const command = /\bnode((?: --[^\s]+)*) packages\/server\/dist\/main\.js/.exec(scripts.start)
  if (command === null) throw new Error("package.json's start script no longer runs packages/server/dist/main.js")
  return command[1].trim().split(/\s+/).filter(Boolean)
})()
const site = await start(path("./loadSite.mjs"), {}, { core: 0 })
const profileDir = join(folder, "profile")
const webdata = await start(
  path("../../packages/server/dist/main.js"),
  {
    PORT: "0",
    HOST: "127.0.0.1",
    WEBDATA_STORE: `sqlite:${join(folder, "webdata.db")}`,
    WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1",
  },
  { core: 1, flags: [...startFlags, ...(PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])] },
)

const json = async (response) => {
  const body = await response.json()
  if (!response.ok || body.success === false) throw new Error(`${response.status}: ${JSON.stringify(body)}`)
  return body
}
const { id } = await json(
  await fetch(`${webdata.url}/v2/crawl`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: `${site.url}/tiny`, limit: 1 }),
  }),
)
const statusPath = `/v2/crawl/${id}`
for (;;) {
  const status = await json(await fetch(`${webdata.url}${statusPath}`))
  if (status.status === "completed") break
  await new Promise((resolve) => setTimeout(resolve, 100))
}
const statusBytes = (await (await fetch(`${webdata.url}${statusPath}`)).text()).length
// The floor answers a status body of the same size, with no store behind it.
const floor = await start(
  path("./floor.mjs"),
  { BENCH_FLOOR_SERVER: "1", STATUS_BODY_BYTES: String(statusBytes) },
  { core: 1 },
)

const scrapeRequest = {
  path: "/v2/scrape",
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ url: `${site.url}/article`, formats: ["markdown"], maxAge: 0 }),
}
const KINDS = (process.env.LANES ?? "status,scrape").split(",")
const pairs = [
  { kind: "status", request: { path: statusPath } },
  { kind: "scrape", request: scrapeRequest },
].filter(({ kind }) => KINDS.includes(kind))
const lanes = pairs.flatMap(({ kind, request }) => [
  { name: `floor ${kind}`, server: floor, request },
  { name: `webdata ${kind}`, server: webdata, request },
])

/** A lane's run: autocannon's result, and the latencies (ms) of the requests on connections already open. */
const load = async (lane, duration) => {
  const run = autocannon({
    url: `${lane.server.url}${lane.request.path}`,
    method: lane.request.method ?? "GET",
    headers: lane.request.headers,
    body: lane.request.body,
    connections: CONNECTIONS,
    duration,
  })
  const opened = new Set()
  const onOpenConnections = []
  run.on("response", (client, _status, _bytes, latency) => {
    if (opened.has(client)) onOpenConnections.push(latency)
    else opened.add(client)
  })
  return { result: await run, onOpenConnections: onOpenConnections.sort((a, b) => a - b) }
}
/** The `q` quantile of sorted `values`, in whole milliseconds as autocannon gives its own. */
const quantile = (values, q) => Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0)

/** One lane's run: requests/s, latency, failures, and the server's CPU milliseconds per answered request. */
const measure = async (lane, duration) => {
  const cpuBefore = cpuSeconds(lane.server.pid)
  const { result, onOpenConnections } = await load(lane, duration)
  const cpuMs = ((cpuSeconds(lane.server.pid) - cpuBefore) * 1000) / Math.max(1, result.requests.total)
  return {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    openP50: quantile(onOpenConnections, 0.5),
    openP99: quantile(onOpenConnections, 0.99),
    failed: result.errors + result.timeouts + result.non2xx,
    cpuMs,
  }
}

console.log(
  `${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s per lane, lanes interleaved; servers pinned to core 1: ${hasTaskset}; ` +
    `status body ${statusBytes} bytes; load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")}`,
)
for (const lane of lanes) await load(lane, 2)
// Where the profile starts counting (V8's profile clock and hrtime are both the monotonic clock, in µs there).
const measuredFrom = Number(process.hrtime.bigint() / 1000n)
const results = lanes.map(() => [])
for (let round = 1; round <= ROUNDS; round++) {
  const line = []
  for (const [index, lane] of lanes.entries()) {
    const result = await measure(lane, DURATION)
    results[index].push(result)
    line.push(
      `${lane.name} ${result.perSecond.toFixed(0)}/s p50 ${result.p50} p99 ${result.p99} ms (open ${result.openP50}/${result.openP99}) cpu ${result.cpuMs.toFixed(2)} ms${result.failed > 0 ? ` (${result.failed} failed)` : ""}`,
    )
  }
  console.log(`round ${round}: ${line.join(" | ")}`)
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const summary = results.map((rounds) => ({
  perSecond: median(rounds.map((r) => r.perSecond)),
  p50: median(rounds.map((r) => r.p50)),
  p99: median(rounds.map((r) => r.p99)),
  openP50: median(rounds.map((r) => r.openP50)),
  openP99: median(rounds.map((r) => r.openP99)),
  failed: rounds.reduce((sum, r) => sum + r.failed, 0),
  cpuMs: median(rounds.map((r) => r.cpuMs)),
}))
console.log("median of rounds:")
for (const [index, lane] of lanes.entries()) {
  const { perSecond, p50, p99, openP50, openP99, failed, cpuMs } = summary[index]
  console.log(
    `  ${lane.name}: ${perSecond.toFixed(0)}/s, p50 ${p50} ms, p99 ${p99} ms (on open connections ${openP50}/${openP99}), failed ${failed}; ` +
      `server CPU ${cpuMs.toFixed(2)} ms per request (${(1000 / cpuMs).toFixed(0)}/s on a core of its own)`,
  )
}
// A p50 under 1 ms (the floor's status reads) rounds to 0: no ratio then.
const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : "–")
for (const [index, { kind }] of pairs.entries()) {
  const [floorLane, webdataLane] = [summary[2 * index], summary[2 * index + 1]]
  const target = kind === "status" ? "target ≥ 5000/s" : "target ≥ 0.70× the floor, p99/p50 ≤ 3"
  console.log(
    `${kind}: webdata ${webdataLane.perSecond.toFixed(0)}/s, ${ratio(webdataLane.perSecond, floorLane.perSecond)}× the floor's ` +
      `throughput (by CPU per request ${ratio(floorLane.cpuMs, webdataLane.cpuMs)}×); p99/p50 on open connections ` +
      `${ratio(webdataLane.openP99, webdataLane.openP50)}, the floor's ${ratio(floorLane.openP99, floorLane.openP50)}; ` +
      `over the whole lane ${ratio(webdataLane.p99, webdataLane.p50)}, the floor's ${ratio(floorLane.p99, floorLane.p50)} (${target})`,
  )
}
console.log(
  `load average at the end: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")}`,
)

await Promise.all([floor.close(), webdata.close(), site.close()])
if (PROFILE) printProfile()
rmSync(folder, { recursive: true, force: true })

/** Self time of webdata's process by function and by package, from its `--cpu-prof` profile. */
function printProfile() {
  const file = existsSync(profileDir) ? readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile")) : undefined
  if (file === undefined) return console.log("no profile written")
  const profile = JSON.parse(readFileSync(join(profileDir, file), "utf8"))
  const self = new Map(profile.nodes.map((node) => [node.id, 0]))
  // The measured lanes only (not start-up or warm-up), and the busy time only (not waiting for requests).
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]
    if (at >= measuredFrom)
      self.set(profile.samples[i], self.get(profile.samples[i]) + (profile.timeDeltas[i + 1] ?? 0))
  }
  for (const node of profile.nodes) if (node.callFrame.functionName === "(idle)") self.set(node.id, 0)
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const byFunction = new Map()
  const byPackage = new Map()
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame
    const time = self.get(node.id)
    const where = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^.*packages\//, "")}:${lineNumber + 1}`
    byFunction.set(where, (byFunction.get(where) ?? 0) + time)
    const owner =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
      /packages\/([^/]+)/.exec(url)?.[1] ??
      (url.startsWith("node:") ? "node" : url === "" ? functionName || "(vm)" : "other")
    byPackage.set(owner, (byPackage.get(owner) ?? 0) + time)
  }
  const top = (map, count) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, time]) => `  ${((100 * time) / total).toFixed(1)}% ${name}`)
      .join("\n")
  console.log(`webdata's CPU, self time by package:\n${top(byPackage, 15)}\nby function:\n${top(byFunction, 25)}`)
}
