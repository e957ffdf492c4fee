/** @webdata/parse — file parsers for webdata (PDF with offline OCR, Office, OpenDocument, EPUB, RTF, CSV): give its layer to the engine. */
export { layer, layerConfig, make } from "./FileParserLayer.js"
export type { ThreadOptions } from "./ParseThreads.js"
