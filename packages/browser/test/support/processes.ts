/** Processes this one started, at any depth (other test files and benchmarks may run browsers at the same time). */
import { execFileSync } from "node:child_process"

export interface OwnProcess {
  readonly pid: number
  readonly args: string
}

export const ownProcesses = (): Array<OwnProcess> => {
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
  return all.filter((entry) => ours.has(entry.pid) && entry.pid !== process.pid)
}
