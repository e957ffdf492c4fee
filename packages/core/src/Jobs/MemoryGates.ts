/** The politeness gates of the memory store: when each gate next opens. */
import { LRUCache } from "lru-cache"
import type { Gate } from "./JobStore.js"

export class MemoryGates {
  // Bounded: a crawl with external links meets many hosts; a forgotten gate only costs one early fetch.
  readonly #opensAt = new LRUCache<string, number>({ max: 10_000 })

  pass(gates: ReadonlyArray<Gate>, now: number): number | undefined {
    const closed = Math.max(0, ...gates.map((gate) => this.#opensAt.get(gate.key) ?? 0))
    if (closed > now) return closed
    for (const gate of gates) if (gate.spacingMs > 0) this.#opensAt.set(gate.key, now + gate.spacingMs)
    return undefined
  }

  hold(key: string, until: number): number {
    const opensAt = Math.max(this.#opensAt.get(key) ?? 0, until)
    this.#opensAt.set(key, opensAt)
    return opensAt
  }

  purge(now: number): void {
    for (const [key, opensAt] of this.#opensAt.entries()) if (opensAt <= now) this.#opensAt.delete(key)
  }
}
