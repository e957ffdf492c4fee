/**
 * What a Lambda container keeps between invocations (an engine, a web handler): made at its first use and reused by the
 * warm invocations; made again after `dispose`, or after it failed to get ready (a store that could not be reached),
 * so that a container recovers once the cause is gone instead of failing until Lambda replaces it.
 */
export interface Kept<T> {
  /** The kept value, ready; rejects with what kept it from getting ready (the next call tries again). */
  readonly get: () => Promise<T>
  readonly dispose: () => Promise<void>
}

export const keep = <T extends { readonly dispose: () => Promise<void> }>(
  make: () => T,
  ready: (value: T) => Promise<unknown>,
): Kept<T> => {
  let kept: T | undefined
  return {
    get: async () => {
      kept ??= make()
      const current = kept
      await ready(current).catch(async (error: unknown) => {
        if (kept === current) kept = undefined
        await current.dispose()
        throw error
      })
      return current
    },
    dispose: async () => {
      const current = kept
      kept = undefined
      await current?.dispose()
    },
  }
}
