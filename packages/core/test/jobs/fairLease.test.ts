/** The two-level fairness rule of `leaseTasks` (owners, then their jobs) on an in-memory double of a store. */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { fairLease, type LeaseCandidate } from "../../src/Jobs/FairLease.js"

interface DoubleJob extends LeaseCandidate {
  /** Due tasks left. */
  due: number
  /** Live leases held before this lease. */
  readonly live?: number
}

const job = (id: string, owner: string | null, due: number, extra: Partial<DoubleJob> = {}): DoubleJob => ({
  id,
  owner,
  due,
  maxConcurrency: undefined,
  ...extra,
})

/** Runs `fairLease` on the jobs (in the order given) and counts the tasks each job and each owner got. */
const run = (jobs: ReadonlyArray<DoubleJob>, max: number) => {
  const byId = new Map(jobs.map((one) => [one.id, one]))
  const asked: Array<string> = []
  const result = Effect.runSync(
    fairLease(jobs, max, {
      liveLeases: (jobId) => Effect.sync(() => byId.get(jobId)!.live ?? 0),
      take: (jobId, n) =>
        Effect.sync(() => {
          asked.push(jobId)
          const row = byId.get(jobId)!
          const got = Math.min(n, row.due)
          row.due -= got
          return Array.from({ length: got }, () => jobId)
        }),
    }),
  )
  const perJob = new Map<string, number>()
  const perOwner = new Map<string | null, number>()
  for (const jobId of result.tasks) {
    perJob.set(jobId, (perJob.get(jobId) ?? 0) + 1)
    const owner = byId.get(jobId)!.owner
    perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1)
  }
  return { ...result, perJob, perOwner, asked }
}

const many = (owner: string | null, count: number, due: number) =>
  Array.from({ length: count }, (_, i) => job(`${owner ?? "none"}-${i}`, owner, due))

describe("fairLease", () => {
  it("gives each owner an equal share, however many jobs it has", () => {
    const { tasks, perOwner, perJob } = run([...many("a", 20, 10), job("b-0", "b", 10)], 8)
    expect(tasks).toHaveLength(8)
    expect(perOwner.get("a")).toBe(4)
    expect(perOwner.get("b")).toBe(4)
    // A's share is split among its least recently served jobs, one each.
    expect(["a-0", "a-1", "a-2", "a-3"].map((id) => perJob.get(id))).toEqual([1, 1, 1, 1])
  })

  it("gives the slots an owner cannot use to the owners that have more", () => {
    const { tasks, perOwner } = run([...many("a", 20, 10), job("b-0", "b", 1)], 8)
    expect(tasks).toHaveLength(8)
    expect(perOwner.get("b")).toBe(1)
    expect(perOwner.get("a")).toBe(7)
  })

  it("is work-conserving when the first jobs of an owner run dry", () => {
    // Every job of A has one task: the leftovers must reach A's jobs that the first pass did not visit.
    const { tasks, perOwner } = run([...many("a", 20, 1), job("b-0", "b", 1)], 8)
    expect(tasks).toHaveLength(8)
    expect(perOwner.get("a")).toBe(7)
    expect(new Set(tasks).size).toBe(8)
  })

  it("gives a lone owner every slot", () => {
    const { tasks, perJob } = run([job("a-0", "a", 3), job("a-1", "a", 100)], 10)
    expect(tasks).toHaveLength(10)
    expect(perJob.get("a-0")).toBe(3)
    expect(perJob.get("a-1")).toBe(7)
  })

  it("never gives a job more than its free maxConcurrency slots", () => {
    const { tasks, perJob, perOwner } = run(
      [
        job("a-0", "a", 10, { maxConcurrency: 3, live: 2 }),
        job("a-1", "a", 10, { maxConcurrency: 2 }),
        job("b-0", "b", 10, { maxConcurrency: 5, live: 5 }),
      ],
      8,
    )
    expect(perJob.get("a-0")).toBe(1)
    expect(perJob.get("a-1")).toBe(2)
    expect(perOwner.get("b")).toBeUndefined()
    expect(tasks).toHaveLength(3)
  })

  it("counts the jobs without an owner as one owner", () => {
    const { perOwner } = run([...many(null, 5, 10), ...many("a", 5, 10), ...many("b", 5, 10)], 9)
    expect([perOwner.get(null), perOwner.get("a"), perOwner.get("b")]).toEqual([3, 3, 3])
  })

  it("serves the owner whose most recently served job is oldest first", () => {
    // A's jobs are first in line, but A's last job was served after B's only one: with one slot, B goes first.
    const { tasks, served } = run([job("a-0", "a", 10), job("b-0", "b", 10), job("a-1", "a", 10)], 1)
    expect(tasks).toEqual(["b-0"])
    expect(served).toEqual(["b-0"])
  })

  it("reports each served job once, in the order it was first served", () => {
    const { served, asked } = run([job("a-0", "a", 10), job("a-1", "a", 1), job("b-0", "b", 10)], 10)
    expect(served).toEqual(["a-0", "a-1", "b-0"])
    // a-1 ran dry in the first pass: the leftovers do not ask it again.
    expect(asked.filter((id) => id === "a-1")).toHaveLength(1)
  })

  it("leases nothing for no slots or no jobs", () => {
    expect(run([job("a-0", "a", 10)], 0).tasks).toEqual([])
    expect(run([], 8).tasks).toEqual([])
  })
})
