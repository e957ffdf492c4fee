/**
 * Bounds for the property-based (fuzz) suites. CI runs each property with its own small `numRuns`; `FUZZ_SCALE=<n>`
 * multiplies every count (and the test's time limit) to fuzz longer locally, and `FUZZ_SEED=<seed>` replays the seed
 * a failure printed.
 */
import type fc from "fast-check"

const scale = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1) || 1)
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

/** fast-check parameters for a property that runs `runs` cases in CI. */
export const fuzzParameters = <T>(runs: number, extra: fc.Parameters<T> = {}): fc.Parameters<T> => ({
  ...extra,
  numRuns: runs * scale,
  ...(seed !== undefined && Number.isFinite(seed) ? { seed } : {}),
})

/** A vitest time limit for a property that takes up to `ms` in CI. */
export const fuzzTimeout = (ms: number): number => ms * scale
