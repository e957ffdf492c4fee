/**
 * A worker thread running a module of this project: the compiled `.js` file next to the caller, or, when running
 * from the TypeScript sources (tests, `tsx`), the `.ts` file loaded through tsx's loader inside the thread.
 */
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker, type WorkerOptions } from "node:worker_threads"

/** `entry` is the module's URL without extension, relative to `base` (the caller's `import.meta.url`). */
export const startModuleWorker = (base: string, entry: string, options: WorkerOptions = {}): Worker => {
  if (base.endsWith(".js")) return new Worker(new URL(`${entry}.js`, base), options)
  const source = new URL(`${entry}.ts`, base).href
  // The ESM build of tsx's API (a CommonJS `require.resolve` would find its CommonJS build).
  const tsx = new URL("dist/esm/api/index.mjs", pathToFileURL(createRequire(base).resolve("tsx/package.json"))).href
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}) })`,
    { ...options, eval: true },
  )
}
