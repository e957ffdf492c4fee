/**
 * The walk microdata and RDFa share: a scope element (`itemscope`, `typeof`) makes an item; the property elements
 * (`itemprop`, `property`) under it, up to the next scope, give its values; a property element that is itself a scope
 * gives a nested item. Each element is visited by its nearest scope only, so a page costs one pass.
 */
import { type ChildNode, isTag } from "domhandler"
import { addValue, type Budget, type Item, LIMITS, newItem, type Source, typeNames, type Value } from "./Candidates.js"
import { attr, type Element, hasAttr, type Page } from "./Html.js"

const MAX_SCOPES = 2_000

export interface ScopeSyntax {
  readonly source: Source
  /** The attribute that opens a scope. */
  readonly scope: string
  /** The attribute naming the scope's types. */
  readonly type: string
  /** The attribute naming the properties an element gives. */
  readonly property: string
  /** A property element's value when it is not a scope. */
  readonly value: (element: Element, base: string | undefined) => string
}

const readScope = (
  syntax: ScopeSyntax,
  scope: Element,
  depth: number,
  aside: boolean,
  page: Page,
  budget: Budget,
): Item | undefined => {
  if (depth > LIMITS.depth) return undefined
  const order = budget.take()
  if (order === undefined) return undefined
  const item = newItem(syntax.source, typeNames([attr(scope, syntax.type) ?? ""]), order, depth, aside)
  const stack: Array<ChildNode> = [...scope.children].reverse()
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isTag(node)) continue
    const names = (attr(node, syntax.property) ?? "").split(/\s+/).filter((name) => name !== "")
    const nested = hasAttr(node, syntax.scope)
    if (names.length > 0) {
      const value: Value | undefined = nested
        ? readScope(syntax, node, depth + 1, aside, page, budget)
        : syntax.value(node, page.base)
      if (value !== undefined) for (const name of names) addValue(item, name, value)
    }
    // A nested scope's properties are its own.
    if (!nested) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return item
}

const insideScope = (element: Element, scope: string): boolean => {
  for (let parent = element.parent; parent !== null; parent = parent.parent)
    if (isTag(parent) && hasAttr(parent, scope)) return true
  return false
}

/** The page's items in one syntax: scopes that are not a property of another, with their nested scopes inside. */
export const readScopes = (page: Page, budget: Budget, syntax: ScopeSyntax): Array<Item> => {
  const items: Array<Item> = []
  const scopes = page.elements.filter(({ element }) => hasAttr(element, syntax.scope)).slice(0, MAX_SCOPES)
  for (const { element, aside } of scopes) {
    if (hasAttr(element, syntax.property) && insideScope(element, syntax.scope)) continue
    const item = readScope(syntax, element, 0, aside, page, budget)
    if (item !== undefined) items.push(item)
  }
  return items
}
