/** The job store named by `WEBDATA_STORE` (`sqlite:<path>`, the default `sqlite:.webdata/webdata.db`, or `memory:`). */
import type { JobStore } from "@webdata/core/jobs"
import { SqliteJobStore } from "@webdata/store-sqlite"
import type { Layer } from "effect"

export const storeLayerConfig: Layer.Layer<JobStore, unknown> = SqliteJobStore.layerConfig
