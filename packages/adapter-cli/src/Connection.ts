/** Where a command's work runs: in process, or on the server `--api-url` names. */
import { Option } from "effect"

export interface Connection {
  readonly apiUrl: Option.Option<string>
  readonly apiKey: Option.Option<string>
}

/** The in-process layer, or the remote one for `--api-url` (with `--api-key`). */
export const layerFor = <L>(args: Connection, local: L, remote: (url: string, apiKey: string | undefined) => L): L =>
  Option.match(args.apiUrl, { onNone: () => local, onSome: (url) => remote(url, Option.getOrUndefined(args.apiKey)) })
