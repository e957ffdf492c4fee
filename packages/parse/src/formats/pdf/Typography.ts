/** The document's body text size, its heading sizes and its left margin, from every page's lines. */
import type { Typography } from "./Blocks.js"
import type { Line } from "./Lines.js"

const rounded = (size: number) => Math.round(size * 2) / 2

export const typographyOf = (pages: ReadonlyArray<ReadonlyArray<Line>>): Typography => {
  const bySize = new Map<number, number>()
  const byLeft = new Map<number, number>()
  for (const lines of pages)
    for (const line of lines) {
      bySize.set(rounded(line.size), (bySize.get(rounded(line.size)) ?? 0) + line.text.length)
      byLeft.set(Math.round(line.x), (byLeft.get(Math.round(line.x)) ?? 0) + line.text.length)
    }
  const mostCommon = (counts: Map<number, number>, fallback: number) =>
    [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? fallback
  const bodySize = mostCommon(bySize, 10)
  const headingSizes = [...bySize.keys()].filter((size) => size >= bodySize * 1.15).sort((a, b) => b - a)
  return { bodySize, headingSizes: headingSizes.slice(0, 6), bodyLeft: mostCommon(byLeft, 0) }
}
