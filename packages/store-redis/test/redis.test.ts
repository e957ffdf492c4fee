import { runJobStoreConformance } from "../../core/test/jobs/conformance.js"
import { storeLayer } from "./support/redis.js"

runJobStoreConformance("redis", () => storeLayer())
