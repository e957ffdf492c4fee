/**
 * Who holds a lease: `host|pid|start|nonce`. The host part lets a worker find the leases that other processes of its
 * own machine hold; the pid and the process's start time let it tell that such a process is gone (a crash, SIGKILL,
 * a restart), so that a restarted server takes its tasks back at once instead of waiting for the leases to expire.
 * Leases of other machines' workers still come back only when they expire.
 */
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import { v7 as uuidv7 } from "uuid"

const SEPARATOR = "|"

/**
 * A process's start time in clock ticks since boot (field 22 of Linux's `/proc/<pid>/stat`), which tells a process
 * from a later one that reuses its pid; undefined where `/proc` is not available.
 */
const startTimeOf = (pid: number | "self"): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

/** This machine's part of a holder's name: a name never holds the separator. */
export const hostPrefix = (): string => `${hostname().replaceAll(SEPARATOR, "_")}${SEPARATOR}`

/** A new holder name for a worker of this process. */
export const newHolder = (): string =>
  [hostPrefix().slice(0, -1), process.pid, startTimeOf("self") ?? "-", uuidv7()].join(SEPARATOR)

/**
 * Whether the process that took a lease under `holder` (a name from `newHolder` on this machine) is no longer
 * running. A holder of another machine or of another form is never judged gone.
 */
export const isGone = (holder: string): boolean => {
  if (!holder.startsWith(hostPrefix())) return false
  const [, pidText, start] = holder.split(SEPARATOR)
  const pid = Number(pidText)
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return start !== (startTimeOf("self") ?? "-")
  try {
    process.kill(pid, 0)
  } catch (error) {
    // ESRCH: no such process. EPERM: it exists under another user, so it is alive.
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
  const current = startTimeOf(pid)
  return start !== "-" && current !== undefined && current !== start
}
