/**
 * A hostile HTTP server on 127.0.0.1 for bad-input tests: decompression bombs, endless or slow bodies, redirect
 * traps, broken encodings. `start(host?)` listens on an ephemeral port of `host` (default 127.0.0.1; any 127.x works
 * on Linux); `close()` also cuts the connections that never end.
 *
 * Routes (all GET):
 *   /page                       small UTF-8 HTML page ("Hostile fixture")
 *   /echo                       JSON `{ method, url, headers }` of the request
 *   /status/:code               an HTML page with that status (404, 500, ...)
 *   /redirect/chain/:n          302 to /redirect/chain/:n-1; /redirect/chain/0 is a page (so /chain/11 needs 11 hops)
 *   /redirect/loop              302 to /redirect/loop-back, which 302s back to /redirect/loop, forever
 *   /redirect/relative          301 with the relative `Location: ../page?via=relative`
 *   /redirect/see-other         303 to /echo
 *   /redirect/to?url=U          302 to the absolute URL U (for example a loopback address the guard must refuse)
 *   /cookie/start               302 to /cookie/check, setting `session=s3cret; Path=/cookie` and a cookie for /elsewhere
 *   /cookie/check               200 echoing the Cookie header if it carries session=s3cret, else 403
 *   /bomb/gzip                  gzip members of 10 MiB of zeros, repeated: 10 GiB once decompressed (about 10 MB sent)
 *   /bomb/br                    brotli of 256 MiB of zeros (a few hundred bytes sent)
 *   /bomb/gzip-gzip             `Content-Encoding: gzip, gzip`: gzip of the gzip of 64 MiB of zeros (a few KB sent)
 *   /encoding/stacked           `Content-Encoding` naming gzip 2000 times over a tiny body
 *   /huge                       60 MB of HTML streamed without Content-Length
 *   /huge/declared              the same with `Content-Length: 60000000`
 *   /slow-drip                  headers, then one byte per second, forever
 *   /never-ending               headers and the start of a page, then silence without ending the body
 *   /hang                       accepts the request and never answers
 *   /reset                      destroys the connection without answering
 *   /truncated                  declares 1000 bytes, sends 10 and closes
 *   /invalid-utf8               text/html; charset=utf-8 with bytes that are not UTF-8
 *   /binary/random              64 KiB of random bytes served as text/html
 *   /binary/png                 a PNG image served as text/html
 *   /charset/shift_jis          Shift_JIS page declared only by <meta charset="Shift_JIS"> ("日本語のページ")
 *   /charset/windows-1252       windows-1252 page declared by the Content-Type header ("Café crème")
 *   /charset/utf-16             UTF-16LE page with a BOM and a wrong `charset=iso-8859-1` header ("Grüße")
 *   /encoding/:name             the /page HTML compressed as gzip, deflate (zlib), deflate-raw (sent as `deflate`), br;
 *                               /encoding/zstd claims zstd (which Node 20 cannot decode); /encoding/broken claims gzip
 *                               but sends plain text
 *   /maze/:n[/:k...]            an endless link space: each room links to five rooms below it (`/maze/1/3` → `/maze/1/3/1`…)
 *   /malformed                  tag soup: unclosed, misnested and stray tags, a NUL, broken entities and comments
 *   /headers/long               a page with a 64 KiB response header
 *   /headers/many               a page with 2000 response headers
 *   /wrong-type/:type           the /page HTML declared as `json`, `pdf`, `png`, `zip` or `none` (no Content-Type)
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import type { Writable } from "node:stream"
import { brotliCompressSync, constants, createBrotliCompress, deflateRawSync, deflateSync, gzipSync } from "node:zlib"

export interface HostileServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** Paths requested so far, in order (to prove a hop was or was not made). */
  readonly requests: ReadonlyArray<string>
  /** TCP connections accepted so far, whether or not they sent a request. */
  readonly connections: () => number
  /** TCP connections open right now. */
  readonly openConnections: () => number
  /** Whether the connection that carried `requests[index]` is still open (to see that an aborted fetch closed it). */
  readonly requestConnectionOpen: (index: number) => boolean
  readonly close: () => Promise<void>
}

const MiB = 1024 * 1024

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Hostile fixture</title></head><body><p>Hostile fixture</p></body></html>`

const ONE_BY_ONE_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
)

// "日本語のページ" in Shift_JIS.
const SHIFT_JIS_TEXT = Buffer.from("93fa967b8cea82cc8379815b8357", "hex")

const zeroGzipMember = (() => {
  let member: Buffer | undefined
  return () => {
    member ??= gzipSync(Buffer.alloc(10 * MiB), { level: 9 })
    return member
  }
})()

/** Brotli of 256 MiB of zeros, compressed once from a stream so the test process never holds the zeros. */
/** gzip(gzip(64 MiB of zeros)): the inner layer alone inflates past the 50 MiB cap. */
const doubleGzipBomb = (() => {
  let bomb: Buffer | undefined
  return () => {
    bomb ??= gzipSync(gzipSync(Buffer.alloc(64 * MiB), { level: 9 }), { level: 9 })
    return bomb
  }
})()

const zeroBrotli = (() => {
  let result: Promise<Buffer> | undefined
  return () => {
    result ??= new Promise<Buffer>((resolve, reject) => {
      const compressor = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
      const out: Array<Buffer> = []
      compressor.on("data", (chunk: Buffer) => out.push(chunk))
      compressor.on("end", () => resolve(Buffer.concat(out)))
      compressor.on("error", reject)
      const zeros = Buffer.alloc(MiB)
      let written = 0
      const pump = () => {
        while (written < 256) {
          written++
          if (!compressor.write(zeros)) return void compressor.once("drain", pump)
        }
        compressor.end()
      }
      pump()
    })
    return result
  }
})()

/** Writes `chunk` `times` times, respecting back-pressure, until done or the connection goes away. */
const repeat = (res: Writable, chunk: Buffer, times: number) => {
  let sent = 0
  const pump = () => {
    while (sent < times && !res.destroyed) {
      sent++
      if (!res.write(chunk)) return void res.once("drain", pump)
    }
    res.end()
  }
  pump()
}

const html = (res: ServerResponse, body: string | Buffer, status = 200, type = "text/html; charset=utf-8") => {
  res.writeHead(status, { "content-type": type })
  res.end(body)
}

const redirect = (res: ServerResponse, location: string, status = 302, headers: Record<string, string[]> = {}) => {
  res.writeHead(status, { location, ...headers })
  res.end()
}

const handle = (req: IncomingMessage, res: ServerResponse, timers: Set<NodeJS.Timeout>) => {
  const url = new URL(req.url ?? "/", "http://fixture")
  const path = url.pathname
  const chain = path.match(/^\/redirect\/chain\/(\d+)$/)
  if (chain !== null) {
    const n = Number(chain[1])
    return n === 0 ? html(res, PAGE) : redirect(res, `/redirect/chain/${n - 1}`)
  }
  if (/^\/maze(\/\d+)+$/.test(path)) {
    const links = [1, 2, 3, 4, 5].map((k) => `<li><a href="${path}/${k}">Door ${k}</a></li>`)
    return html(res, `<html><head><title>${path}</title></head><body><h1>Room ${path}</h1><ul>${links.join("")}</ul>`)
  }
  const declared = path.match(/^\/wrong-type\/(json|pdf|png|zip|none)$/)
  if (declared !== null) {
    const types: Record<string, string> = {
      json: "application/json",
      pdf: "application/pdf",
      png: "image/png",
      zip: "application/zip",
    }
    const type = types[declared[1] ?? ""]
    res.writeHead(200, type === undefined ? {} : { "content-type": type })
    return void res.end(PAGE)
  }
  const status = path.match(/^\/status\/(\d{3})$/)
  if (status !== null) return html(res, `<html><body><h1>Status ${status[1]}</h1></body></html>`, Number(status[1]))
  switch (path) {
    case "/page":
      return html(res, PAGE)
    case "/malformed":
      return html(
        res,
        '<html><p>one<div>two</p>three</div><b><i>x</b></i><table><td>cell<tr><ul><li>a<li>b</ol>\u0000&am;&#xZZ;&#99999999;<!-- open <p class="x>y</p><a href=">z</a></body></html><p>after',
      )
    case "/headers/long":
      res.writeHead(200, { "content-type": "text/html", "x-long": "a".repeat(64 * 1024) })
      return void res.end(PAGE)
    case "/headers/many":
      // Node takes the raw form: names and values in one flat list.
      res.writeHead(200, [
        "content-type",
        "text/html",
        ...Array.from({ length: 2000 }, (_, index) => [`x-header-${index}`, String(index)]).flat(),
      ])
      return void res.end(PAGE)
    case "/echo":
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }))
    case "/redirect/loop":
      return redirect(res, "/redirect/loop-back")
    case "/redirect/loop-back":
      return redirect(res, "/redirect/loop")
    case "/redirect/relative":
      return redirect(res, "../page?via=relative", 301)
    case "/redirect/see-other":
      return redirect(res, "/echo", 303)
    case "/redirect/to":
      return redirect(res, url.searchParams.get("url") ?? "/page")
    case "/cookie/start":
      return redirect(res, "/cookie/check", 302, {
        "set-cookie": ["session=s3cret; Path=/cookie; HttpOnly", "unrelated=1; Path=/elsewhere"],
      })
    case "/cookie/check": {
      const cookie = req.headers.cookie ?? ""
      return /(^|;\s*)session=s3cret(;|$)/.test(cookie)
        ? html(res, `<p>cookie: ${cookie}</p>`)
        : html(res, "<p>no session</p>", 403)
    }
    case "/bomb/gzip":
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" })
      return repeat(res, zeroGzipMember(), 1024)
    case "/bomb/gzip-gzip":
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip, gzip" })
      return void res.end(doubleGzipBomb())
    case "/encoding/stacked":
      res.writeHead(200, { "content-type": "text/html", "content-encoding": Array(2000).fill("gzip").join(", ") })
      return void res.end("<p>x</p>")
    case "/bomb/br":
      return void zeroBrotli().then((body) => {
        res.writeHead(200, { "content-type": "text/html", "content-encoding": "br" })
        res.end(body)
      })
    case "/huge":
      res.writeHead(200, { "content-type": "text/html" })
      return repeat(res, Buffer.alloc(64 * 1024, "<p>huge</p>"), Math.ceil(60_000_000 / (64 * 1024)))
    case "/huge/declared":
      res.writeHead(200, { "content-type": "text/html", "content-length": "60000000" })
      return repeat(res, Buffer.alloc(60_000, "a"), 1000)
    case "/slow-drip": {
      res.writeHead(200, { "content-type": "text/html" })
      res.flushHeaders()
      const timer = setInterval(() => res.write("a"), 1000)
      timers.add(timer)
      return void res.on("close", () => clearInterval(timer))
    }
    case "/never-ending":
      res.writeHead(200, { "content-type": "text/html" })
      return void res.write("<html><body><p>This body never ends")
    case "/hang":
      return
    case "/reset":
      return void req.socket.destroy()
    case "/truncated":
      res.writeHead(200, { "content-type": "text/html", "content-length": "1000" })
      res.write("0123456789")
      return void setTimeout(() => req.socket.destroy(), 50)
    case "/invalid-utf8":
      return html(
        res,
        Buffer.concat([Buffer.from("<p>bad: "), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from("</p>")]),
      )
    case "/binary/random":
      return html(res, randomBytes(64 * 1024))
    case "/binary/png":
      return html(res, ONE_BY_ONE_PNG)
    case "/charset/shift_jis":
      return html(
        res,
        Buffer.concat([
          Buffer.from('<html><head><meta charset="Shift_JIS"></head><body><p>'),
          SHIFT_JIS_TEXT,
          Buffer.from("</p></body></html>"),
        ]),
        200,
        "text/html",
      )
    case "/charset/windows-1252":
      return html(res, Buffer.from("<p>Caf\u00e9 cr\u00e8me</p>", "latin1"), 200, "text/html; charset=windows-1252")
    case "/charset/utf-16":
      return html(
        res,
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("<p>Gr\u00fc\u00dfe</p>", "utf16le")]),
        200,
        "text/html; charset=iso-8859-1",
      )
    case "/encoding/gzip":
    case "/encoding/deflate":
    case "/encoding/deflate-raw":
    case "/encoding/br":
    case "/encoding/zstd": {
      const name = path.slice("/encoding/".length)
      const compress = { gzip: gzipSync, deflate: deflateSync, "deflate-raw": deflateRawSync, br: brotliCompressSync }
      const body = name in compress ? compress[name as keyof typeof compress](PAGE) : Buffer.from(PAGE)
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-encoding": name === "deflate-raw" ? "deflate" : name,
      })
      return res.end(body)
    }
    case "/encoding/broken":
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" })
      return res.end("this is not gzip at all")
    default:
      return html(res, "<p>not found</p>", 404)
  }
}

export const start = async (host = "127.0.0.1"): Promise<HostileServer> => {
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  const requests: Array<string> = []
  const requestSockets: Array<Socket> = []
  let connections = 0
  const server = createServer((req, res) => {
    requests.push(req.url ?? "/")
    requestSockets.push(req.socket)
    handle(req, res, timers)
  })
  server.on("connection", (socket) => {
    connections++
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    connections: () => connections,
    openConnections: () => sockets.size,
    requestConnectionOpen: (index) => {
      const socket = requestSockets[index]
      return socket !== undefined && sockets.has(socket)
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer)
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
