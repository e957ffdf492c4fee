/** Images inside a file have no URL a reader could open: each becomes its alt text, as a reader who cannot see it meets it. */
export const imagesAsAltText = (html: string): string =>
  html.replace(
    /<img\b[^>]*>/gi,
    (tag) => /\balt\s*=\s*"([^"]*)"/i.exec(tag)?.[1] ?? /\balt\s*=\s*'([^']*)'/i.exec(tag)?.[1] ?? "",
  )
