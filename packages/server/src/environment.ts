/**
 * @webdata/server/environment — the engine and its store as the environment configures them, without the HTTP server
 * and Express: for hosts that bring their own front (the AWS Lambda adapter), where every module loaded costs start-up.
 */
export { type EnvironmentHostOptions, engineFromEnvironment, enginesLine } from "./engine.js"
export * as StoreFromEnvironment from "./StoreFromEnvironment.js"
