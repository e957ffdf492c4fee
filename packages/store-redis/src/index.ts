/** @webdata/store-redis: the JobStore on Redis, `RedisJobStore.layer({ url, prefix })`. */
export * as RedisJobStore from "./RedisJobStore.js"
