import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const churn = fileURLToPath(new URL("heapChurn.ts", import.meta.url))

/** Peak committed heap (MB) of the churning child under the given environment. */
const peakHeapMb = async (env: Record<string, string>): Promise<number> => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", churn], {
    env: { ...process.env, ...env },
  })
  return Number(stdout.trim())
}

describe("HeapGrowth", () => {
  it("bounds the heap of a process churning through garbage by default, and 0 keeps V8's own growth", async () => {
    const [tuned, untouched] = await Promise.all([peakHeapMb({}), peakHeapMb({ WEBDATA_HEAP_GROWTH_PERCENT: "0" })])
    // Measured: ~120 MB against ~230 MB for a ~20 MB live set.
    expect(tuned).toBeLessThan(untouched * 0.75)
  })

  it("refuses a negative percentage", async () => {
    await expect(peakHeapMb({ WEBDATA_HEAP_GROWTH_PERCENT: "-5" })).rejects.toThrow(/WEBDATA_HEAP_GROWTH_PERCENT/)
  })
})
