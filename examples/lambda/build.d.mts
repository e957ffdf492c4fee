/** Types of `build.mjs`, for the TypeScript that imports it (`bench/test/lambdaExample.test.ts`). */
import type { Message, Metafile } from "esbuild"

export interface BuildOptions {
  /** Default `dist/` next to `build.mjs`; emptied first. */
  readonly outdir?: string
  /** Also copy the browser engine's filter lists and playwright-core next to the bundle. */
  readonly browser?: boolean
  readonly minify?: boolean
  readonly logLevel?: "verbose" | "debug" | "info" | "warning" | "error" | "silent"
}

export interface BuiltFile {
  readonly path: string
  readonly bytes: number
  readonly gzipBytes: number
}

export interface BuildResult {
  readonly outdir: string
  readonly files: ReadonlyArray<BuiltFile>
  readonly metafile: Metafile
  readonly warnings: ReadonlyArray<Message>
}

/** What esbuild leaves out of the bundle (see `build.mjs`). */
export declare const EXTERNAL: ReadonlyArray<string>
export declare const build: (options?: BuildOptions) => Promise<BuildResult>
export declare const biggestInputs: (
  metafile: Metafile,
  name?: string,
  count?: number,
) => ReadonlyArray<readonly [string, number]>
