/** The API on a loopback port for tests that call it over real HTTP, as a client (an SDK, a loader) would. */
import { Layer } from "effect"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { type Listening, serveWebHandler } from "./loopback.js"

type Handler = (request: Request) => Promise<Response>

/**
 * An engine that may reach loopback sites, behind `keys`, served on 127.0.0.1; `observe` may wrap the handler (to
 * record what clients asked). `close` stops listening and disposes the engine.
 */
export const serveApi = async (
  keys: ReadonlyArray<string>,
  options: { readonly engine?: Engine.EngineOptions; readonly observe?: (handler: Handler) => Handler } = {},
): Promise<Listening> => {
  const web = makeWebHandler(
    Layer.merge(
      Engine.layer({ allowPrivateAddresses: true, ...options.engine }),
      ServerConfig.layer({ apiKeys: [...keys] }),
    ),
  )
  const listening = await serveWebHandler(options.observe?.(web.handler) ?? web.handler)
  return {
    url: listening.url,
    close: async () => {
      await listening.close()
      await web.dispose()
    },
  }
}
