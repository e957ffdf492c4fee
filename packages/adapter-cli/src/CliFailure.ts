/** A failure the CLI prints, `webdata: ` before each line (most are one), before exiting with status 1. */
export class CliFailure extends Error {}
