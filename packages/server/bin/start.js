// The binaries are committed entry points, so that npm links them at install time even before the TypeScript is built.
export const start = (entry) =>
  import(`../dist/${entry}`).catch((error) => {
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes(`dist/${entry}`)) {
      console.error("webdata: the server is not built yet; run `npm run build` first")
      process.exit(1)
    }
    throw error
  })
