import MiniSearch from "minisearch"
const syl = "ka lo mi ra te su no vi de pa ri so ma ne tu ba gi lu fe zo ar en il or um ta ve co li da".split(" ")
let s = 7
const rnd = () => { s = (s + 0x6d2b79f5) | 0; let t = Math.imul(s ^ (s >>> 15), 1 | s); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296 }
const V: string[] = []; const set = new Set<string>()
while (set.size < 30000) { const w = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => syl[Math.floor(rnd() * syl.length)]).join(""); if (!set.has(w)) { set.add(w); V.push(w) } }
const cum = new Float64Array(V.length); let sum = 0; for (let r = 0; r < V.length; r++) cum[r] = sum += 1 / (r + 1); for (let r = 0; r < V.length; r++) cum[r]! /= sum
const z = () => { const x = rnd(); let lo = 0, hi = V.length - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (cum[m]! < x) lo = m + 1; else hi = m } return V[lo]! }
const docs = Array.from({ length: 10000 }, (_, i) => ({ id: String(i), title: Array.from({ length: 7 }, z).join(" "), description: Array.from({ length: 18 }, z).join(" "), content: Array.from({ length: 500 }, z).join(" "), urlWords: `site${i % 500} example ${z()} ${z()}` }))
const mk = (opts: object = {}) => new MiniSearch({ fields: ["title", "description", "content", "urlWords"], storeFields: [], ...opts })
let t = performance.now(); let m = mk(); for (const d of docs) m.add(d); console.log("default add", ((performance.now() - t) / 10).toFixed(3), "ms/100docs →", (10000 / ((performance.now() - t) / 1000)).toFixed(0), "/s")
t = performance.now(); m = mk({ tokenize: (s: string) => s.split(" ") , processTerm: (x: string) => x}); for (const d of docs) m.add(d); console.log("split add", (10000 / ((performance.now() - t) / 1000)).toFixed(0), "/s")
const q = Array.from({ length: 200 }, () => Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => V[Math.floor(Math.exp(Math.log(10) + rnd() * Math.log(2000)))]).join(" "))
const time = (name: string, o: object) => { const l: number[] = []; for (const x of q) { const s = performance.now(); m.search(x, o); l.push(performance.now() - s) } l.sort((a, b) => a - b); console.log(name, l[100]!.toFixed(2), l[198]!.toFixed(2)) }
const b = { boost: { title: 3, description: 1.5, content: 1, urlWords: 0.5 } }
time("AND plain", { ...b, combineWith: "AND" })
time("OR plain", { ...b, combineWith: "OR" })
time("AND prefix", { ...b, combineWith: "AND", prefix: (t: string, i: number, a: string[]) => i === a.length - 1 && t.length >= 3 })
time("AND fuzzy", { ...b, combineWith: "AND", fuzzy: (t: string) => t.length >= 5 ? 0.2 : false })
time("AND both", { ...b, combineWith: "AND", prefix: (t: string, i: number, a: string[]) => i === a.length - 1 && t.length >= 3, fuzzy: (t: string) => t.length >= 5 ? 0.2 : false })
time("OR both", { ...b, combineWith: "OR", prefix: (t: string, i: number, a: string[]) => i === a.length - 1 && t.length >= 3, fuzzy: (t: string) => t.length >= 5 ? 0.2 : false })
