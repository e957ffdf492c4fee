/**
 * Child process of heapGrowth.test.ts: `node --import tsx heapChurn.ts`, configured like a server from
 * `WEBDATA_HEAP_GROWTH_PERCENT`. Keeps a ~20 MB live set and
 * replaces its entries over and over, so garbage collects in the old space (entries live long enough to be
 * promoted), then prints the largest heap V8 committed meanwhile, in MB.
 */
import { getHeapStatistics } from "node:v8"
import { Effect, Layer } from "effect"
import * as HeapGrowth from "../../src/Process/HeapGrowth.js"

await Effect.runPromise(Effect.scoped(Layer.build(HeapGrowth.layerConfig)))
const live: Array<Array<number>> = Array.from({ length: 20_000 }, () => new Array(100).fill(0))
let peak = 0
for (let round = 0; round < 300; round++) {
  // A tenth of the entries each round: each lives ~10 rounds, long enough to be promoted before it dies.
  for (let i = 0; i < live.length / 10; i++) live[Math.floor(Math.random() * live.length)] = new Array(100).fill(round)
  peak = Math.max(peak, getHeapStatistics().total_heap_size)
}
process.stdout.write(`${Math.round(peak / 2 ** 20)}\n`)
