/** What a user gets from a parsed file: its pages' HTML through core's content pipeline, as markdown. */
import { extractHtml } from "@webdata/core/content"
import type { ParsedFile } from "@webdata/core/engine"

export const markdownOf = (parsed: ParsedFile): string =>
  parsed.pages
    .map(
      (html) =>
        extractHtml(html, {
          url: "https://files.test/file",
          onlyMainContent: false,
          includeTags: [],
          excludeTags: [],
          removeBase64Images: true,
          formats: { markdown: true, html: false, links: false, images: false },
        }).markdown ?? "",
    )
    .join("\n\n")
