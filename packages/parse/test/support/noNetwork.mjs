/**
 * Preloaded (`--import`) into a process and its threads to prove they reach no network: every way out (sockets,
 * HTTP, fetch) reports the attempt on stderr and fails. Plain JavaScript: threads load it without a TypeScript loader.
 */
import http from "node:http"
import https from "node:https"
import net from "node:net"

const refuse = (what) => {
  process.stderr.write(`NETWORK ATTEMPT: ${what}\n`)
  throw new Error(`network refused: ${what}`)
}

net.Socket.prototype.connect = (...args) => refuse(`socket ${JSON.stringify(args[0])}`)
http.request = (...args) => refuse(`http ${String(args[0])}`)
https.request = (...args) => refuse(`https ${String(args[0])}`)
http.get = http.request
https.get = https.request
globalThis.fetch = async (input) => refuse(`fetch ${String(input)}`)
