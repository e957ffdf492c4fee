/**
 * Where the CLI's work runs: in this process (the engine configured from the environment) or, with `--api-url`, on a
 * webdata or Firecrawl server (plain `POST /v2/scrape`). The implementations (`ScraperLayers.ts`) load with the first
 * scrape.
 */
import type { Document, ScrapeOptionsInput } from "@webdata/core"
import { Context, type Effect } from "effect"
import type { CliFailure } from "./CliFailure.js"

export interface ScraperShape {
  readonly scrape: (url: string, options: Omit<ScrapeOptionsInput, "url">) => Effect.Effect<Document, CliFailure>
}

export class Scraper extends Context.Tag("@webdata/adapter-cli/Scraper")<Scraper, ScraperShape>() {}
