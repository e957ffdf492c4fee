/**
 * Pages a content thread is to skip: their callers stopped waiting (a timeout, a page taken back to the event loop)
 * after they were sent. Messages to a thread cannot be taken back, so the thread looks here before building one. A
 * ring shared with the threads: slot `id % SLOTS` holds the tag of the last page withdrawn there; a page is skipped
 * only when the tag is its own, so a slot reused by a later page never skips the wrong one.
 */
const SLOTS = 4096

/** The ring, shared with every content thread of a pool (in `workerData`). */
export const withdrawnPages = (): Int32Array => new Int32Array(new SharedArrayBuffer(SLOTS * 4))

const tag = (id: number): number => (id % 0x7fffffff) + 1

export const withdraw = (ring: Int32Array, id: number): void => void Atomics.store(ring, id % SLOTS, tag(id))

export const isWithdrawn = (ring: Int32Array, id: number): boolean => Atomics.load(ring, id % SLOTS) === tag(id)
