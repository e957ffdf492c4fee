/** Chromium processes of interact sessions started by this test process: their command lines name a session's profile. */
import { setTimeout as sleep } from "node:timers/promises"
import { ownProcesses } from "./processes.js"

export const sessionProcesses = (): number =>
  ownProcesses().filter((entry) => entry.args.includes("webdata-session-")).length

/** Waits (up to 5 s) for session processes to exit down to `count`; the count then. */
export const sessionProcessesSettled = async (count: number): Promise<number> => {
  for (let attempt = 0; attempt < 50 && sessionProcesses() > count; attempt++) await sleep(100)
  return sessionProcesses()
}
