/**
 * What the CLI writes, as its users expect: argument errors as one \`webdata: <message>\` line (@effect/cli prints a help
 * document for them), and no colour codes when the output is not a terminal or \`NO_COLOR\` is set.
 */
import { Console, Effect } from "effect"

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it removes
const ANSI = /\u001b\[[0-9;]*m/g

/** Whether `stream` may get colour codes: a terminal, unless `NO_COLOR` is set (https://no-color.org) or TERM=dumb. */
export const colours = (stream: Pick<NodeJS.WriteStream, "isTTY">): boolean =>
  stream.isTTY === true && (process.env.NO_COLOR ?? "") === "" && process.env.TERM !== "dumb"

const plain = (args: ReadonlyArray<unknown>, stream: Pick<NodeJS.WriteStream, "isTTY">): Array<unknown> =>
  colours(stream) ? [...args] : args.map((arg) => (typeof arg === "string" ? arg.replace(ANSI, "") : arg))

/** The first line of a help document's text, without colour codes. */
export const firstLine = (text: string): string =>
  text
    .replace(ANSI, "")
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "") ?? "invalid arguments"

/**
 * A console for the CLI. Until a command starts (\`started()\`), what @effect/cli writes to stderr is held back: it
 * is the help document of an argument error, which \`main\` replaces with one line; once a command runs, stderr is
 * written through.
 */
export const makeTerminal = () => {
  let running = false
  const held: Array<unknown> = []
  const base = globalThis.console
  const unsafe: Console.UnsafeConsole = {
    ...base,
    log: (...args) => base.log(...plain(args, process.stdout)),
    info: (...args) => base.info(...plain(args, process.stdout)),
    error: (...args) => {
      if (running) base.error(...plain(args, process.stderr))
      else held.push(...args)
    },
  }
  const console: Console.Console = {
    [Console.TypeId]: Console.TypeId,
    unsafe,
    assert: (condition, ...args) => Effect.sync(() => unsafe.assert(condition, ...args)),
    clear: Effect.sync(() => unsafe.clear()),
    count: (label) => Effect.sync(() => unsafe.count(label)),
    countReset: (label) => Effect.sync(() => unsafe.countReset(label)),
    debug: (...args) => Effect.sync(() => unsafe.debug(...args)),
    dir: (item, options) => Effect.sync(() => unsafe.dir(item, options)),
    dirxml: (...args) => Effect.sync(() => unsafe.dirxml(...args)),
    error: (...args) => Effect.sync(() => unsafe.error(...args)),
    group: (options) =>
      Effect.sync(() => (options?.collapsed ? unsafe.groupCollapsed(options.label) : unsafe.group(options?.label))),
    groupEnd: Effect.sync(() => unsafe.groupEnd()),
    info: (...args) => Effect.sync(() => unsafe.info(...args)),
    log: (...args) => Effect.sync(() => unsafe.log(...args)),
    table: (data, properties) => Effect.sync(() => unsafe.table(data, properties)),
    time: (label) => Effect.sync(() => unsafe.time(label)),
    timeEnd: (label) => Effect.sync(() => unsafe.timeEnd(label)),
    timeLog: (label, ...args) => Effect.sync(() => unsafe.timeLog(label, ...args)),
    trace: (...args) => Effect.sync(() => unsafe.trace(...args)),
    warn: (...args) => Effect.sync(() => unsafe.warn(...args)),
  }
  return {
    console,
    /** A command starts: stderr goes through from now on. */
    started: Effect.sync(() => {
      running = true
    }),
    /** What was held back, as text. */
    held: (): string => held.map(String).join("\n"),
  }
}
