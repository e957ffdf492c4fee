/** @webdata/store-postgres: the JobStore on PostgreSQL, `PostgresJobStore.layer({ url, schema, poolSize })`. */
export * as PostgresJobStore from "./PostgresJobStore.js"
