import { runJobStoreConformance } from "../../core/test/jobs/conformance.js"
import { layerInFreshSchema } from "./support.js"

runJobStoreConformance("postgres", () => layerInFreshSchema())
