/**
 * @webdata/server — the deployable webdata server: the Firecrawl-compatible v2 API (`serve()`, the `webdata-server`
 * binary) and its workers (`runWorker()`, the `webdata-worker` binary), on the job store `WEBDATA_STORE` names.
 */
export { type EnvironmentHostOptions, engineFromEnvironment, enginesLine } from "./engine.js"
export * as StoreFromEnvironment from "./StoreFromEnvironment.js"
export { type RunningServer, type ServeOptions, serve } from "./serve.js"
export { type RunningWorker, runWorker } from "./worker.js"
