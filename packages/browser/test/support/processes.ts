/** Processes this one started, at any depth (other test files and benchmarks may run browsers at the same time). */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"

export interface OwnProcess {
  readonly pid: number
  readonly ppid: number
  readonly args: string
}

const allProcesses = (): Array<OwnProcess> =>
  execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3]! }))

/** `root`'s processes at any depth, without `root`. */
export const descendantsOf = (root: number): Array<OwnProcess> => {
  const all = allProcesses()
  const ours = new Set([root])
  for (let grown = true; grown; ) {
    grown = false
    for (const entry of all)
      if (ours.has(entry.ppid) && !ours.has(entry.pid)) {
        ours.add(entry.pid)
        grown = true
      }
  }
  return all.filter((entry) => ours.has(entry.pid) && entry.pid !== root)
}

export const ownProcesses = (): Array<OwnProcess> => descendantsOf(process.pid)

/** A process as seen once: its pid, and its start time, told apart from a later process given the same pid. */
export interface Sighting {
  readonly pid: number
  readonly start: string
}

/** `/proc/<pid>/stat` after the command: state first (`pid (comm) S …`; the command may itself hold a ")"). */
const statOf = (pid: number): Array<string> | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** The process `pid` now, or undefined once it has gone. */
export const sight = (pid: number): Sighting | undefined => {
  const stat = statOf(pid)
  // starttime is the stat's 22nd field, the 20th after the command.
  return stat === undefined ? undefined : { pid, start: stat[19]! }
}

/**
 * Whether a process has exited. One whose parent died is re-parented out of this one's tree (to PID 1 or a
 * subreaper), so it is looked up by its pid; a zombie (state Z: exited, not yet reaped by its new parent) counts, and
 * so does another process now holding its pid.
 */
export const hasExited = (process: Sighting): boolean => {
  const stat = statOf(process.pid)
  return stat === undefined || stat[0] === "Z" || stat[19] !== process.start
}

/** Of `processes`, the pids of those still running after waiting up to `ms` for them to exit. */
export const stillRunning = async (processes: Iterable<Sighting>, ms = 5000): Promise<Array<number>> => {
  const deadline = Date.now() + ms
  for (;;) {
    const running = [...processes].filter((process) => !hasExited(process)).map((process) => process.pid)
    if (running.length === 0 || Date.now() >= deadline) return running
    await sleep(100)
  }
}
