import { Layer } from "effect"
import { JobStore } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { runMonitorClaims } from "./claims.js"

// Two engines over one memory store stand for two workers of one process.
const shared = MemoryJobStore.make()
runMonitorClaims("memory", () => Layer.succeed(JobStore, shared))
