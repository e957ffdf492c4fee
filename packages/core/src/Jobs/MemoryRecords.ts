/**
 * The records of the in-memory job store (`JobStore.putRecord` and the rest): a map by kind and id, scanned for lists
 * and due records. Scans are linear, which suits what the memory store is for (tests, the embedded library, a few
 * monitors); the durable stores index them.
 */
import { Option } from "effect"
import type { RecordQuery, RecordWrite, StoredRecord } from "./JobStore.js"

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`

/** Newest first: `createdAt`, then `id`, descending. */
const newestFirst = (a: StoredRecord, b: StoredRecord): number =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export class MemoryRecords {
  private readonly records = new Map<string, { readonly record: StoredRecord; readonly json: string }>()

  /** `json` is the value's JSON text; the stored value is what it parses to, as in the durable stores. */
  put(write: RecordWrite, json: string): Option.Option<StoredRecord> {
    const key = keyOf(write.kind, write.id)
    const existing = this.records.get(key)?.record
    if (write.expectedVersion !== undefined && (existing?.version ?? 0) !== write.expectedVersion) return Option.none()
    const record: StoredRecord = {
      kind: write.kind,
      id: write.id,
      owner: write.owner,
      ...(write.parent !== undefined ? { parent: write.parent } : {}),
      ...(write.label !== undefined ? { label: write.label } : {}),
      ...(write.dueAt !== undefined ? { dueAt: write.dueAt } : {}),
      value: JSON.parse(json) as unknown,
      version: (existing?.version ?? 0) + 1,
      createdAt: existing?.createdAt ?? write.now,
      updatedAt: write.now,
      ...(write.expiresAt !== undefined ? { expiresAt: write.expiresAt } : {}),
    }
    this.records.set(key, { record, json })
    return Option.some(this.copy(record, json))
  }

  get(kind: string, id: string): Option.Option<StoredRecord> {
    const entry = this.records.get(keyOf(kind, id))
    return entry === undefined ? Option.none() : Option.some(this.copy(entry.record, entry.json))
  }

  list(query: RecordQuery): ReadonlyArray<StoredRecord> {
    const matching: Array<{ readonly record: StoredRecord; readonly json: string }> = []
    for (const entry of this.records.values()) {
      const { record } = entry
      if (record.kind !== query.kind) continue
      if (query.owner !== undefined && record.owner !== query.owner) continue
      if (query.parent !== undefined && record.parent !== query.parent) continue
      if (query.label !== undefined && record.label !== query.label) continue
      matching.push(entry)
    }
    return matching
      .sort((a, b) => newestFirst(a.record, b.record))
      .slice(query.offset, query.offset + query.limit)
      .map((entry) => this.copy(entry.record, entry.json))
  }

  due(kind: string, now: number, limit: number): ReadonlyArray<StoredRecord> {
    const due: Array<{ readonly record: StoredRecord; readonly json: string }> = []
    for (const entry of this.records.values())
      if (entry.record.kind === kind && entry.record.dueAt !== undefined && entry.record.dueAt <= now) due.push(entry)
    return due
      .sort((a, b) => (a.record.dueAt ?? 0) - (b.record.dueAt ?? 0) || (a.record.id < b.record.id ? -1 : 1))
      .slice(0, limit)
      .map((entry) => this.copy(entry.record, entry.json))
  }

  delete(kind: string, id: string): number {
    let deleted = this.records.delete(keyOf(kind, id)) ? 1 : 0
    for (const [key, entry] of this.records)
      if (entry.record.parent === id) {
        this.records.delete(key)
        deleted += 1
      }
    return deleted
  }

  purge(now: number): number {
    let purged = 0
    for (const [key, entry] of this.records)
      if (entry.record.expiresAt !== undefined && entry.record.expiresAt <= now) {
        this.records.delete(key)
        purged += 1
      }
    return purged
  }

  /** A copy the caller may keep: the value parsed again, so nobody changes the stored one. */
  private copy(record: StoredRecord, json: string): StoredRecord {
    return { ...record, value: JSON.parse(json) as unknown }
  }
}
