/** A one-line failure the CLI prints before exiting with status 1. */
export class CliFailure extends Error {}
