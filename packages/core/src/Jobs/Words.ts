/**
 * The words of a text as the search index knows them: lower-case runs of letters and digits. One definition for the
 * query side (`Search/LocalIndex.ts`) and for the stores that tokenise pages themselves (Redis), so that a word
 * indexed is a word a query can name.
 */
const WORD = /[\p{L}\p{N}]+/gu

export const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(WORD) ?? []
