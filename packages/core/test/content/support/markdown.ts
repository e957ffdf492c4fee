/** The markdown writer through the public extraction (no main-content pruning), and a CommonMark + GFM renderer. */
import render from "dom-serializer"
import { parseDocument } from "htmlparser2"
import MarkdownIt from "markdown-it"
import { extractHtml } from "../../../src/Content/ExtractHtml.js"

export const BASE = "https://site.example/page"

export const markdownOf = (html: string): string =>
  extractHtml(html, {
    url: BASE,
    onlyMainContent: false,
    includeTags: [],
    excludeTags: [],
    removeBase64Images: true,
    formats: { markdown: true, html: false, links: false, images: false },
  }).markdown ?? ""

const renderer = new MarkdownIt({ html: true, linkify: false })

/** Markdown rendered to HTML, as a renderer that passes raw HTML through would show it. */
export const rendered = (markdown: string): string => renderer.render(markdown)

/** The rendered HTML with whitespace between tags and after `<br>` dropped: for comparing structure. */
export const compact = (html: string): string =>
  render(parseDocument(html).children)
    .replace(/>\s+</g, "><")
    .replace(/<br>\s+/g, "<br>")
    .trim()
