/** A test API server (private targets allowed, the given keys; none: open) beside the site it scrapes. */
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { type FixtureSite, startFixtureSite } from "../../../core/test/support/fixtureSite.js"

export const startTestApi = (apiKeys: ReadonlyArray<string> = []): Promise<RunningServer> =>
  serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true }),
    serverConfig: ServerConfig.layer({ apiKeys }),
  })

export interface SiteWithApi<Site> {
  readonly site: Site
  readonly api: RunningServer
  readonly close: () => Promise<void>
}

/** An API over `site`; `close` stops both. */
export const withApi = async <Site extends { readonly close: () => Promise<void> }>(
  site: Site,
  apiKeys: ReadonlyArray<string> = [],
): Promise<SiteWithApi<Site>> => {
  const api = await startTestApi(apiKeys)
  return {
    site,
    api,
    close: async () => {
      await api.close()
      await site.close()
    },
  }
}

export type ApiWithSite = SiteWithApi<FixtureSite>

/** The fixture site and an API over it. */
export const startApiWithSite = async (apiKeys: ReadonlyArray<string>): Promise<ApiWithSite> =>
  withApi(await startFixtureSite(), apiKeys)
