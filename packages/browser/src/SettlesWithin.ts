/** Bounds on a browser's answers: a hung browser never answers, and nothing here may wait for it forever. */

/** `promise`'s value if it settles within `ms` (a failure gives `undefined`), else `undefined`; the timer never holds the process open. */
export const valueWithin = <A>(promise: Promise<A>, ms: number): Promise<A | undefined> => {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms).unref()
    }),
  ]).finally(() => clearTimeout(timer))
}

/** Whether `promise` settles within `ms` (a failure counts as settled). */
export const settlesWithin = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  valueWithin(
    promise.then(
      () => true,
      () => true,
    ),
    ms,
  ).then((settled) => settled === true)
