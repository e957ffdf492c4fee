/** @webdata/adapter-cli — the `webdata` command line. */
export { main, webdata } from "./Cli.js"
export { render } from "./commands/scrape.js"
