/** The counters of the in-memory job store (`JobStore.addToCounter`, `readCounters`): a map by name. */

export class MemoryCounters {
  private readonly counters = new Map<string, { readonly value: number; readonly expiresAt: number }>()

  /** Adds `by` (already checked: `counterIncrement`) and answers the new value. */
  add(name: string, by: number, expiresAt: number): number {
    const value = (this.counters.get(name)?.value ?? 0) + by
    this.counters.set(name, { value, expiresAt })
    return value
  }

  read(names: ReadonlyArray<string>): ReadonlyArray<number> {
    return names.map((name) => this.counters.get(name)?.value ?? 0)
  }

  purge(now: number): number {
    let purged = 0
    for (const [name, counter] of this.counters)
      if (counter.expiresAt <= now) {
        this.counters.delete(name)
        purged += 1
      }
    return purged
  }
}
