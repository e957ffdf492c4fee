/** The engine's version, reported by the health endpoint and the CLI. Bump with the packages' versions. */
export const VERSION = "0.1.0"
