/** The linked fixture site and an API server over it (private targets allowed), for the CLI's job commands. */
import { type RunningServer, serve } from "@webdata/adapter-express"
import { Engine } from "@webdata/core"
import { type LinkedSite, startLinkedSite } from "./linkedSite.js"

export interface SiteAndApi {
  readonly site: LinkedSite
  readonly api: RunningServer
  readonly close: () => Promise<void>
}

export const startSiteAndApi = async (): Promise<SiteAndApi> => {
  const site = await startLinkedSite()
  const api = await serve({ port: 0, engine: Engine.layer({ allowPrivateAddresses: true }) })
  return {
    site,
    api,
    close: async () => {
      await api.close()
      await site.close()
    },
  }
}

/** The `==> url <==` lines a crawl or batch prints before each page, sorted. */
export const pageHeaders = (stdout: string): ReadonlyArray<string> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("==> "))
    .sort()
