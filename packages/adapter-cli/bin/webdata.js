#!/usr/bin/env node
// Committed entry point, so npm links the `webdata` binary at install time even before the TypeScript is built.
import("../dist/bin.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bin.js")) {
    console.error("webdata: the CLI is not built yet; run `npm run build` first")
    process.exit(1)
  }
  throw error
})
