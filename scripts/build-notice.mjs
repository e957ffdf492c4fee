// `npm start` compiles the TypeScript before serving; on a fresh checkout that takes about a minute, so say so.
import { existsSync } from "node:fs"

const built = existsSync(new URL("../packages/server/dist/main.js", import.meta.url))
console.error(
  built
    ? "webdata: compiling changes (tsc -b)…"
    : "webdata: compiling the TypeScript for the first time (tsc -b, about a minute)…",
)
