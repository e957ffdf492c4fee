import { MemoryJobStore } from "../../src/Jobs/index.js"
import { runJobStoreConformance } from "./conformance.js"

runJobStoreConformance("memory", () => MemoryJobStore.layer())
