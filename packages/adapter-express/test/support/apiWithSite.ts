/** The fixture site and an API server (private targets allowed, the given keys) for end-to-end tests. */
import { Engine, ServerConfig } from "@webdata/core"
import { type FixtureSite, startFixtureSite } from "../../../core/test/support/fixtureSite.js"
import { type RunningServer, serve } from "../../src/index.js"

export interface ApiWithSite {
  readonly site: FixtureSite
  readonly api: RunningServer
  readonly close: () => Promise<void>
}

export const startApiWithSite = async (apiKeys: ReadonlyArray<string>): Promise<ApiWithSite> => {
  const site = await startFixtureSite()
  const api = await serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true }),
    serverConfig: ServerConfig.layer({ apiKeys }),
  })
  return {
    site,
    api,
    close: async () => {
      await api.close()
      await site.close()
    },
  }
}
