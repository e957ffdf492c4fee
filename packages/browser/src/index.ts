/** @webdata/browser — the browser engine for webdata on the system Chromium: give its layer to the engine. */
export { type BrowserOptions, layer, layerConfig, make } from "./BrowserPool.js"
export { findChromium } from "./Chromium.js"
