/**
 * A proxy URL (`http://[user:pass@]host:port`) as Playwright takes it: the server, and its credentials apart. Chromium
 * sends loopback addresses around a proxy unless told not to (`<-loopback>`): every request goes through it here.
 */
export const proxyOf = (proxy: string) => {
  const url = new URL(proxy)
  return {
    server: `${url.protocol}//${url.host}`,
    bypass: "<-loopback>",
    ...(url.username !== "" ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== "" ? { password: decodeURIComponent(url.password) } : {}),
  }
}
