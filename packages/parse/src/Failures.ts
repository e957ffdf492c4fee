/**
 * How a parser says a file cannot be read. Parsers run on threads, so their failures cross as plain data
 * (`reason`, `message`) and become `ScrapeError`s on the caller's side.
 */
export type FailureReason = "ParseFailed" | "UnsupportedContent"

export class FileFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message)
  }
}

/** Corrupt, encrypted, or too large once unpacked: 422 `PARSE_FAILED`. */
export const parseFailed = (message: string): FileFailure => new FileFailure("ParseFailed", message)

/** A kind of file no parser reads: 415 `SCRAPE_UNSUPPORTED_FILE_ERROR`. */
export const unsupported = (message: string): FileFailure => new FileFailure("UnsupportedContent", message)
