/** Request body fields from options: only those given, so the engine's (or server's) defaults apply to the rest. */
import { Option } from "effect"

export const some = <A>(key: string, value: Option.Option<A>): Record<string, A> =>
  Option.match(value, { onNone: () => ({}), onSome: (given) => ({ [key]: given }) })

export const when = (key: string, on: boolean): Record<string, true> => (on ? { [key]: true } : {})

export const list = (key: string, values: ReadonlyArray<string>): Record<string, ReadonlyArray<string>> =>
  values.length > 0 ? { [key]: values } : {}
