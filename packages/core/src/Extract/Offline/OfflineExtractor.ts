/**
 * The `json` format without a language model: a schema filled from what the page states in a machine-readable or
 * labelled form (JSON-LD, microdata, RDFa, meta tags, key/value tables, labelled text), never from free text. What is
 * not found is left out; every value has the schema's type. Plain functions over htmlparser2's tree, without
 * Effect, so that it can run in worker threads that do not load it; every reader is bounded, so hostile pages (huge,
 * deeply nested, thousands of JSON-LD blocks, broken JSON) cost bounded time and never throw.
 */
import { Budget } from "./Candidates.js"
import { readPage } from "./Html.js"
import { readJsonLd } from "./JsonLd.js"
import { readLabelledText } from "./LabelledText.js"
import { readMeta } from "./MetaTags.js"
import { readMicrodata } from "./Microdata.js"
import { readRdfa } from "./Rdfa.js"
import { rootShape } from "./Schema.js"
import { fillSchema } from "./SchemaMatch.js"
import { readTables } from "./Tables.js"

export interface OfflineExtraction {
  /** An object shaped by the schema: only properties that were found (never invented); values coerced to the schema's types. */
  readonly value: Record<string, unknown>
  /** Where each filled top-level property came from: "json-ld" | "microdata" | "rdfa" | "meta" | "table" | "text". */
  readonly sources: Record<string, string>
}

export const extractOffline = (
  html: string,
  url: string,
  schema: { readonly [key: string]: unknown },
): OfflineExtraction => {
  const shape = rootShape(schema)
  if (shape.properties.length === 0) return { value: {}, sources: {} }
  const page = readPage(html, url)
  const budget = new Budget()
  const items = [...readJsonLd(page, budget), ...readMicrodata(page, budget), ...readRdfa(page, budget)]
  const meta = readMeta(page, budget.take() ?? 0)
  const tables = readTables(page, budget)
  const text = readLabelledText(page, budget.take() ?? 0)
  const titles = (meta.props.get("name") ?? []).filter((title): title is string => typeof title === "string")
  return fillSchema({ items, page: [meta, tables.pairs, text], rows: tables.rows, titles, base: page.base }, shape)
}
