/** @webdata/store-sqlite: the JobStore on SQLite, `SqliteJobStore.layer({ filename })` or `.layerConfig`. */
export * as SqliteJobStore from "./SqliteJobStore.js"
