/**
 * Bundles the ready handlers of `@webdata/adapter-lambda` (`handler`, `streamingHandler`, `workHandler`,
 * `scheduleHandler`) for the Node.js 20 runtime of AWS Lambda: `npm run build -w @webdata/example-lambda`, or
 * `node build.mjs [--browser] [--outdir=<dir>]`. `import { build } from "./build.mjs"` does the same from a script.
 *
 * What `dist/` holds (SAM's `CodeUri: dist/`, handlers `index.handler`, `index.workHandler`, …):
 * - `index.js`: the handlers and everything they import, ESM, minified, with `index.js.map` (mappings only; Node
 *   uses it with `NODE_OPTIONS=--enable-source-maps`).
 * - `DocumentWorker.js`, `ParseWorker.js`: the entries of the engine's content and parse threads. The engine starts
 *   them from the file next to its own (`startModuleWorker` in @webdata/core): a bundle without them would have no
 *   thread to start. That lookup takes the compiled `.js` file only when the caller's file ends in `.js` (otherwise it
 *   looks for TypeScript and tsx), hence `index.js` rather than `index.mjs`, and:
 * - `package.json`: `{"type":"module"}`, so that Node (and Lambda's runtime) load the `.js` files as ESM.
 * - with `--browser` only: `filters/` (the ad-blocking lists of @webdata/browser) and `node_modules/playwright-core`.
 *
 * The workspace packages are bundled from their TypeScript sources (the `source` export condition, as the tests and
 * the benchmarks run them): esbuild strips the types itself, so the bundle is always the checked-out code, with no
 * `tsc -b` step before it and no stale `dist/` to pick up (the published packages ship `src/` with the same condition,
 * so this works outside the monorepo too). Type checking stays `npx tsc -b`'s job; deploy what passes it.
 */
import { cp, mkdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises"
import { dirname, extname, join, relative, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { gzipSync } from "node:zlib"
import * as esbuild from "esbuild"

const here = dirname(fileURLToPath(import.meta.url))

/**
 * Left out of the bundle, each for a reason; none of them is needed by a deployment without the browser or OCR.
 * - `@webdata/store-sqlite`, `better-sqlite3`: a native addon, and a file store is one container's on Lambda (the
 *   server's `StoreFromEnvironment` imports a store package only when `WEBDATA_STORE` names it).
 * - `playwright-core`, `chromium-bidi`: Playwright locates its own files (its driver, injected scripts) relative to
 *   its package and cannot be bundled; `@webdata/browser` imports it only when it launches a Chromium, which needs a
 *   Chromium layer and `CHROMIUM_PATH` anyway. `--browser` copies the package next to the bundle.
 * - `pg-native`: the optional native binding of `pg`, never loaded unless asked for.
 * - `@napi-rs/canvas` (a native addon) and `tesseract.js` (starts its worker from a file of its package): OCR in
 *   @webdata/parse, imported for a PDF page with under 20 characters of text (a scan, a blank page). Without them such
 *   a PDF answers 422 PARSE_FAILED ("Cannot find package '@napi-rs/canvas'") unless the request asks for
 *   `parsers: [{ type: "pdf", mode: "fast" }]`; text PDFs and the other formats do not use them.
 */
export const EXTERNAL = [
  "@webdata/store-sqlite",
  "better-sqlite3",
  "playwright-core",
  "chromium-bidi",
  "chromium-bidi/*",
  "pg-native",
  "@napi-rs/canvas",
  "tesseract.js",
]

/** CommonJS dependencies call `require` (of Node's built-ins mostly), which ESM output lacks: this gives them one. */
const BANNER = [
  'import { createRequire as __webdataCreateRequire } from "node:module";',
  "const require = __webdataCreateRequire(import.meta.url);",
].join("\n")

/** The engine's thread entries, by output name: the package that has it (imported by @webdata/server) and its path. */
const THREADS = {
  DocumentWorker: { package: "@webdata/core", path: "Scrape/DocumentWorker" },
  ParseWorker: { package: "@webdata/parse", path: "ParseWorker" },
}

/** Resolves `chain` of packages, each from the folder of the one before (as the packages import each other). */
const resolveChain = async (build, chain) => {
  let from = here
  let path = ""
  for (const name of chain) {
    const result = await build.resolve(name, { kind: "import-statement", resolveDir: from })
    if (result.errors.length > 0) throw new Error(`Cannot resolve ${name} from ${from}: ${result.errors[0].text}`)
    path = result.path
    from = dirname(path)
  }
  return path
}

/** `webdata-thread:<name>` entries: the thread's module in the package that has it, found as the server finds it. */
const threadEntries = {
  name: "webdata-thread-entries",
  setup(build) {
    build.onResolve({ filter: /^webdata-thread:/ }, async (args) => {
      const thread = THREADS[args.path.slice("webdata-thread:".length)]
      if (thread === undefined) return { errors: [{ text: `No thread entry ${args.path}` }] }
      const index = await resolveChain(build, ["@webdata/adapter-lambda", "@webdata/server", thread.package])
      const path = join(dirname(index), `${thread.path}${extname(index)}`)
      const found = await stat(path).then(
        () => true,
        () => false,
      )
      return found
        ? { path }
        : { errors: [{ text: `${thread.package} has no ${thread.path} (${path}): update THREADS in build.mjs` }] }
    })
  },
}

/** The folder of the package `name` as Node finds it from `from` (workspace links followed). */
const packageDir = async (name, from) => {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name)
    if (
      await stat(join(candidate, "package.json")).then(
        () => true,
        () => false,
      )
    )
      return realpath(candidate)
    if (dirname(dir) === dir) throw new Error(`Cannot find the package ${name} from ${from}`)
  }
}

/** `--browser`: the filter lists of @webdata/browser and the playwright-core it imports, next to the bundle. */
const copyBrowserFiles = async (outdir) => {
  let dir = here
  for (const name of ["@webdata/adapter-lambda", "@webdata/server", "@webdata/browser"])
    dir = await packageDir(name, dir)
  const playwrightDir = await packageDir("playwright-core", dir)
  await cp(join(dir, "filters"), join(outdir, "filters"), { recursive: true })
  await cp(playwrightDir, join(outdir, "node_modules", "playwright-core"), { recursive: true, dereference: true })
}

/**
 * Builds the bundle into `outdir` (emptied first). Answers the output files with their sizes and esbuild's metafile.
 * `browser`: also copy what the browser engine needs besides a Chromium (see the header).
 */
export const build = async ({
  outdir = join(here, "dist"),
  browser = false,
  minify = true,
  logLevel = "warning",
} = {}) => {
  await rm(outdir, { recursive: true, force: true })
  await mkdir(outdir, { recursive: true })
  const result = await esbuild.build({
    absWorkingDir: here,
    entryPoints: [
      { in: "@webdata/adapter-lambda", out: "index" },
      ...Object.keys(THREADS).map((name) => ({ in: `webdata-thread:${name}`, out: name })),
    ],
    outdir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The workspace packages' TypeScript (see the header); "node" and "import" are esbuild's defaults for ESM.
    conditions: ["source"],
    // Do not take `browser` fields of dependencies (platform node already prefers `module`/`main`).
    mainFields: ["module", "main"],
    minify,
    sourcemap: "linked",
    // Mappings only: enough for stack traces, and a third of the size.
    sourcesContent: false,
    banner: { js: BANNER },
    external: EXTERNAL,
    plugins: [threadEntries],
    metafile: true,
    logLevel,
    legalComments: "none",
  })
  await writeFile(join(outdir, "package.json"), `${JSON.stringify({ type: "module" }, null, 2)}\n`)
  if (browser) await copyBrowserFiles(outdir)
  const files = await Promise.all(
    Object.keys(result.metafile.outputs).map(async (output) => {
      const path = resolve(here, output)
      const bytes = await readFile(path)
      return { path, bytes: bytes.length, gzipBytes: gzipSync(bytes).length }
    }),
  )
  return { outdir, files, metafile: result.metafile, warnings: result.warnings }
}

/** The packages (or workspace folders) with the most bytes in the output `name`. */
export const biggestInputs = (metafile, name = "index.js", count = 12) => {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(`/${name}`) || path === name)
  if (output === undefined) return []
  const byPackage = new Map()
  for (const [input, { bytesInOutput }] of Object.entries(output[1].inputs)) {
    const modules = input.lastIndexOf("node_modules/")
    const rest = modules >= 0 ? input.slice(modules + "node_modules/".length) : input.replace(/^(\.\.\/)+/, "")
    const parts = rest.split("/")
    const key = modules >= 0 ? parts.slice(0, rest.startsWith("@") ? 2 : 1).join("/") : parts.slice(0, 2).join("/")
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput)
  }
  return [...byPackage.entries()].sort((a, b) => b[1] - a[1]).slice(0, count)
}

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outdirArgument = process.argv.find((argument) => argument.startsWith("--outdir="))
  const started = performance.now()
  const { outdir, files, metafile } = await build({
    browser: process.argv.includes("--browser"),
    ...(outdirArgument !== undefined ? { outdir: resolve(outdirArgument.slice("--outdir=".length)) } : {}),
  })
  console.log(`built ${relative(process.cwd(), outdir) || "."} in ${(performance.now() - started).toFixed(0)} ms`)
  for (const file of files)
    console.log(
      `  ${relative(outdir, file.path).padEnd(22)} ${String(file.bytes).padStart(10)} bytes (${kib(file.bytes)}, gzip ${kib(file.gzipBytes)})`,
    )
  console.log("biggest inputs of index.js:")
  for (const [name, bytes] of biggestInputs(metafile)) console.log(`  ${name.padEnd(40)} ${kib(bytes).padStart(9)}`)
}
