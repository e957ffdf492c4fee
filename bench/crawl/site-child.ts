/** Child-process entry of `spawnSite`: serves the site, answers "hits" and "close" over IPC. */
import { type SiteOptions, startSite } from "./site.js"

const site = await startSite(JSON.parse(process.argv[2] ?? "{}") as SiteOptions)
process.send?.({ url: site.url })
process.on("message", async (message) => {
  if (message === "hits") process.send?.({ hits: await site.hits() })
  if (message === "close") {
    await site.close()
    process.disconnect()
  }
})
// The parent died without saying goodbye: do not linger.
process.on("disconnect", () => process.exit(0))
