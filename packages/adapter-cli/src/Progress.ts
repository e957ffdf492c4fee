/**
 * The live progress line of a job on stderr: pages done / discovered / errors / rate, redrawn in place with `\r` and
 * "erase line". Only on a terminal: piped or redirected stderr gets nothing.
 */
import { Effect } from "effect"

export interface Counts {
  readonly completed: number
  readonly total: number
  readonly failed?: number
}

/** The part of a stream the line needs (`process.stderr`, or a fake in tests). */
export interface ProgressStream {
  readonly isTTY?: boolean
  readonly columns?: number
  readonly write: (text: string) => unknown
}

const CLEAR = "\r\x1b[2K"

export const progressLine = (noun: string, counts: Counts, elapsedMs: number): string => {
  const rate = elapsedMs > 0 ? (counts.completed * 1000) / elapsedMs : 0
  const errors = counts.failed !== undefined ? ` · ${counts.failed} error${counts.failed === 1 ? "" : "s"}` : ""
  return `${noun}: ${counts.completed} done / ${counts.total} discovered${errors} · ${rate.toFixed(1)} pages/s`
}

export interface Progress {
  /** Whether a line is drawn at all (stderr is a terminal). */
  readonly live: boolean
  readonly update: (counts: Counts) => Effect.Effect<void>
  /** Runs `effect` (which prints) with the line taken away, then draws it again. */
  readonly above: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Takes the line away for good. */
  readonly clear: Effect.Effect<void>
}

export const makeProgress = (noun: string, stream: ProgressStream = process.stderr): Progress => {
  if (stream.isTTY !== true)
    return { live: false, update: () => Effect.void, above: (effect) => effect, clear: Effect.void }
  const started = Date.now()
  let line = ""
  const draw = () => {
    if (line !== "") stream.write(`${CLEAR}${line}`)
  }
  const erase = () => {
    if (line !== "") stream.write(CLEAR)
  }
  return {
    live: true,
    update: (counts) =>
      Effect.sync(() => {
        const full = progressLine(noun, counts, Date.now() - started)
        // Wider than the terminal would wrap, and `\r` only returns to the start of the last row.
        line = stream.columns !== undefined ? full.slice(0, Math.max(0, stream.columns - 1)) : full
        draw()
      }),
    above: (effect) => Effect.sync(erase).pipe(Effect.zipRight(effect), Effect.ensuring(Effect.sync(draw))),
    clear: Effect.sync(() => {
      erase()
      line = ""
    }),
  }
}
