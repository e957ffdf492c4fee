/**
 * The live view of a session: a page that shows the frames of the session's socket (`…/view?token=…`, the page's own
 * URL with `/live` swapped for `/view`) and, opened with the control token, sends the viewer's clicks, wheel and keys
 * back. Self-contained (no scripts or styles from elsewhere), so it works on a closed network.
 */
const SCRIPT = `
const screen = document.getElementById("screen")
const state = document.getElementById("state")
const url = new URL(location.href)
url.pathname = url.pathname.replace(/\\/live$/, "/view")
url.protocol = url.protocol === "https:" ? "wss:" : "ws:"
const socket = new WebSocket(url)
let size = { width: 1, height: 1 }
socket.onmessage = (event) => {
  const message = JSON.parse(event.data)
  if (message.type === "frame") {
    size = message
    screen.src = "data:image/jpeg;base64," + message.data
    state.textContent = ""
  } else if (message.type === "closed") state.textContent = "The session has ended."
}
socket.onclose = () => { state.textContent = "The session has ended." }
const send = (message) => { if (CONTROL && socket.readyState === 1) socket.send(JSON.stringify(message)) }
const at = (event) => {
  const box = screen.getBoundingClientRect()
  return { x: (event.clientX - box.left) * size.width / box.width, y: (event.clientY - box.top) * size.height / box.height }
}
screen.addEventListener("click", (event) => send({ type: "click", ...at(event) }))
screen.addEventListener("wheel", (event) => { event.preventDefault(); send({ type: "scroll", ...at(event), deltaY: event.deltaY }) }, { passive: false })
document.addEventListener("keydown", (event) => {
  if (!CONTROL) return
  event.preventDefault()
  send(event.key.length === 1 ? { type: "text", text: event.key } : { type: "key", key: event.key })
})
`

export const livePage = (control: boolean): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>webdata session${control ? " (interactive)" : ""}</title>
<style>
  body { margin: 0; background: #111; color: #ddd; font: 14px system-ui, sans-serif; }
  #screen { display: block; max-width: 100vw; max-height: 100vh; margin: 0 auto; cursor: ${control ? "pointer" : "default"}; }
  #state { position: fixed; top: 8px; left: 8px; }
</style>
</head>
<body>
<div id="state">Connecting…</div>
<img id="screen" alt="The session's page">
<script>const CONTROL = ${control};${SCRIPT}</script>
</body>
</html>
`
