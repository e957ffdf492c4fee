/** The admission rule shared by every store: which proposed tasks a job takes (dedup by key, bounded by `limit`). */
import type { NewTask } from "./JobStore.js"

/**
 * The tasks a job admits, in the given order: the first task of each key the job has not `seen`, at most `room`
 * of them (the job's `limit` minus its tasks so far).
 */
export const admissible = (
  tasks: ReadonlyArray<NewTask>,
  seen: (key: string) => boolean,
  room: number,
): ReadonlyArray<NewTask> => {
  const admitted: Array<NewTask> = []
  const keys = new Set<string>()
  for (const task of tasks) {
    if (admitted.length >= room) break
    if (keys.has(task.key) || seen(task.key)) continue
    keys.add(task.key)
    admitted.push(task)
  }
  return admitted
}
