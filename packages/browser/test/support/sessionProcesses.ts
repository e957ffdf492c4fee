/**
 * Chromium processes of interact sessions started by this test process (its descendants whose command lines name a
 * session's profile directory; other test files may run sessions at the same time).
 */
import { execFileSync } from "node:child_process"
import { setTimeout as sleep } from "node:timers/promises"

export const sessionProcesses = (): number => {
  const all = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3]! }))
  const ours = new Set([process.pid])
  for (let grown = true; grown; ) {
    grown = false
    for (const entry of all)
      if (ours.has(entry.ppid) && !ours.has(entry.pid)) {
        ours.add(entry.pid)
        grown = true
      }
  }
  return all.filter((entry) => ours.has(entry.pid) && entry.args.includes("webdata-session-")).length
}

/** Waits (up to 5 s) for session processes to exit down to `count`; the count then. */
export const sessionProcessesSettled = async (count: number): Promise<number> => {
  for (let attempt = 0; attempt < 50 && sessionProcesses() > count; attempt++) await sleep(100)
  return sessionProcesses()
}
