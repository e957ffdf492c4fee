/** @webdata/core/jobs — the JobStore port, its memory layer, and the shared rules store layers build on. */
export * from "./Admission.js"
export * from "./FairLease.js"
export * from "./JobStore.js"
export * from "./Json.js"
export * as MemoryJobStore from "./MemoryJobStore.js"
export * as StoreScrapeCache from "./StoreScrapeCache.js"
export { urlWords } from "./UrlWords.js"
export * as Webhooks from "./Webhooks.js"
