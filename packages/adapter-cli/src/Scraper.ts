/**
 * Where the CLI's work runs: in this process (the engine configured from the environment) or, with `--api-url`, on a
 * webdata or Firecrawl server (plain `POST /v2/scrape`). The implementations (`ScraperLayers.ts`) load with the first
 * scrape.
 */
import type { Document, ParseOptionsInput, ScrapeOptionsInput } from "@webdata/core"
import { Context, type Effect } from "effect"
import type { CliFailure } from "./CliFailure.js"

/** A local file to parse. */
export interface FileToParse {
  readonly bytes: Uint8Array
  readonly name: string
}

export interface ScraperShape {
  readonly scrape: (url: string, options: Omit<ScrapeOptionsInput, "url">) => Effect.Effect<Document, CliFailure>
  /** A file through the parsers (`POST /v2/parse` on a server). */
  readonly parse: (file: FileToParse, options: ParseOptionsInput) => Effect.Effect<Document, CliFailure>
}

export class Scraper extends Context.Tag("@webdata/adapter-cli/Scraper")<Scraper, ScraperShape>() {}
