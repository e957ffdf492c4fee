/** The politeness gates every worker process shares: when a host or a job may next be fetched. */
import type { Gate, JobStoreShape } from "@webdata/core/jobs"
import { Effect, Option } from "effect"
import type { Db } from "./Db.js"
import type { Int8 } from "./Rows.js"

type Gates = Pick<JobStoreShape, "passGates" | "holdGate">

/** Each gate once, with the longest spacing asked for it, in key order (the order rows are locked in). */
const normalise = (gates: ReadonlyArray<Gate>): ReadonlyArray<Gate> => {
  const spacing = new Map<string, number>()
  for (const gate of gates) spacing.set(gate.key, Math.max(spacing.get(gate.key) ?? 0, gate.spacingMs))
  return Array.from(spacing, ([key, spacingMs]) => ({ key, spacingMs })).sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  )
}

export const make = ({ sql, run, transaction }: Db): Gates => ({
  /**
   * With a spaced gate, one transaction: the spaced gates' rows are created if missing (so that they can be locked), every existing gate
   * row is locked in key order (concurrent passes of overlapping gates queue instead of deadlocking), and either all
   * spaced gates close together or, when one is closed, nothing changes.
   */
  passGates: (list, now) => {
    const gates = normalise(list)
    if (gates.length === 0) return Effect.succeedNone
    const spaced = gates.filter((gate) => gate.spacingMs > 0)
    const latest = (rows: ReadonlyArray<{ readonly opens_at: Int8 }>) =>
      Math.max(0, ...rows.map((row) => Number(row.opens_at)))
    // Most tasks pass unspaced gates (no delay, no Crawl-delay): nothing to take, so one read without locks.
    if (spaced.length === 0)
      return run(
        Effect.map(
          sql<{ readonly opens_at: Int8 }>`
            SELECT opens_at FROM gates WHERE key = ANY (${gates.map((gate) => gate.key)}::text[])`,
          (rows) => {
            const opensAt = latest(rows)
            return opensAt > now ? Option.some(opensAt) : Option.none()
          },
        ),
      )
    return transaction(
      Effect.gen(function* () {
        yield* sql`
          INSERT INTO gates (key, opens_at)
          SELECT g.key, 0 FROM unnest(${spaced.map((gate) => gate.key)}::text[]) WITH ORDINALITY AS g (key, n)
          ORDER BY g.n
          ON CONFLICT (key) DO NOTHING`
        const rows = yield* sql<{ readonly opens_at: Int8 }>`
          SELECT opens_at FROM gates WHERE key = ANY (${gates.map((gate) => gate.key)}::text[])
          ORDER BY key FOR UPDATE`
        const opensAt = latest(rows)
        if (opensAt > now) return Option.some(opensAt)
        yield* sql`
          UPDATE gates SET opens_at = ${now} + g.spacing
          FROM unnest(${spaced.map((gate) => gate.key)}::text[], ${spaced.map((gate) => gate.spacingMs)}::int8[])
            AS g (key, spacing)
          WHERE gates.key = g.key`
        return Option.none()
      }),
    )
  },

  // One statement: atomic, and the gate only ever opens later.
  holdGate: (key, until) =>
    run(
      Effect.map(
        sql<{ readonly opens_at: Int8 }>`
          INSERT INTO gates (key, opens_at) VALUES (${key}, ${until})
          ON CONFLICT (key) DO UPDATE SET opens_at = GREATEST(gates.opens_at, EXCLUDED.opens_at)
          RETURNING opens_at`,
        (rows) => Number(rows[0]!.opens_at),
      ),
    ),
})
