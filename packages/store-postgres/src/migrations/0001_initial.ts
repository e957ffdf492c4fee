/**
 * The schema. Times and counters are BIGINT (epoch milliseconds, exact as JS numbers); JSON is TEXT, not JSONB, so
 * what comes back is exactly the `JSON.stringify` that went in (JSONB reorders keys and drops duplicates). Ids and
 * keys compared byte-wise are `COLLATE "C"`: cheaper comparisons, and prefix ranges (`starts_with`) usable in an index.
 *
 * Hot rows stay small: `jobs` and `tasks` are updated on every lease and completion, so documents, cached bodies,
 * scrapes and indexed text live in tables of their own. Large TEXT values are TOASTed by Postgres (compressed, and
 * stored out of line past ~2 kB; the default EXTENDED storage suits JSON and markdown, which compress well): their
 * tables' pages stay dense, and an update of a job's counters copies a pointer to its large `options`, not the JSON.
 *
 * B-tree index entries are limited to about 2.7 kB, and a crawl meets URLs longer than that: unique keys on URLs and
 * dedup keys therefore index `md5(value)::uuid` (16 bytes), and lookups compare the full value as well.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // `lease_turn`: jobs are served least recently served first. A sequence hands out turns without a read of the
  // jobs table (max() + 1 would race between processes and scan); new jobs start at 0, ahead of every served job.
  yield* sql`CREATE SEQUENCE lease_turns AS bigint`
  // fillfactor: room on each page for the counters' updates to stay HOT (no new index entries).
  yield* sql`
    CREATE TABLE jobs (
      id text COLLATE "C" PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('crawl', 'batch', 'extract', 'agent', 'monitor')),
      owner text COLLATE "C",
      status text NOT NULL CHECK (status IN ('scraping', 'completed', 'failed', 'cancelled')),
      url text,
      options text NOT NULL,
      task_limit bigint NOT NULL,
      max_concurrency integer,
      delay_ms bigint,
      webhook text,
      zero_data_retention boolean NOT NULL,
      total bigint NOT NULL,
      completed bigint NOT NULL,
      failed bigint NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      completed_at bigint,
      expires_at bigint NOT NULL,
      error text,
      lease_turn bigint NOT NULL DEFAULT 0
    ) WITH (fillfactor = 80)`
  // The lease candidates in serving order; partial, so it holds only the running jobs.
  yield* sql`CREATE INDEX jobs_runnable ON jobs (lease_turn, created_at, id) WHERE status = 'scraping'`
  yield* sql`CREATE INDEX jobs_owner ON jobs (owner, created_at, id)`
  yield* sql`CREATE INDEX jobs_expires ON jobs (expires_at)`

  // `due_at` is when an open task is next due: its `not_before` while pending, the end of its lease while leased, so
  // one partial index serves the lease query both for fresh tasks and for tasks whose lease ran out. It holds only
  // open tasks: a job of millions of finished tasks costs the lease query nothing.
  yield* sql`
    CREATE TABLE tasks (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text COLLATE "C" NOT NULL UNIQUE,
      job_id text COLLATE "C" NOT NULL,
      url text NOT NULL,
      dedup_key text NOT NULL,
      depth integer NOT NULL,
      host text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'leased', 'done', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      not_before bigint NOT NULL,
      due_at bigint NOT NULL,
      lease_owner text COLLATE "C",
      lease_until bigint,
      error_code text,
      error_message text
    )`
  // Dedup (a job admits each key once); also every lookup of a job's tasks by `job_id` alone.
  yield* sql`CREATE UNIQUE INDEX tasks_job_key ON tasks (job_id, (md5(dedup_key)::uuid))`
  yield* sql`CREATE INDEX tasks_due ON tasks (job_id, due_at, seq) WHERE status IN ('pending', 'leased')`
  // Live leases of a job (maxConcurrency), and the leases of a worker (leaseHolders, expireLeases): only leased rows.
  yield* sql`CREATE INDEX tasks_live ON tasks (job_id, lease_until) WHERE status = 'leased'`
  yield* sql`CREATE INDEX tasks_holder ON tasks (lease_owner) WHERE status = 'leased'`

  yield* sql`
    CREATE TABLE documents (
      job_id text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      url text NOT NULL,
      document text NOT NULL,
      created_at bigint NOT NULL,
      PRIMARY KEY (job_id, seq)
    )`

  yield* sql`
    CREATE TABLE job_errors (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text COLLATE "C" NOT NULL,
      job_id text COLLATE "C" NOT NULL,
      url text NOT NULL,
      code text NOT NULL,
      message text NOT NULL,
      at bigint NOT NULL
    )`
  yield* sql`CREATE INDEX job_errors_job ON job_errors (job_id, seq)`

  yield* sql`
    CREATE TABLE robots_blocked (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      job_id text COLLATE "C" NOT NULL,
      url text NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX robots_blocked_job_url ON robots_blocked (job_id, (md5(url)::uuid))`

  yield* sql`
    CREATE TABLE scrapes (
      id text COLLATE "C" PRIMARY KEY,
      owner text,
      document text NOT NULL,
      expires_at bigint NOT NULL
    )`
  yield* sql`CREATE INDEX scrapes_expires ON scrapes (expires_at)`

  // The owner is '' for keyless callers: a primary key column cannot hold NULL the way a lookup needs.
  yield* sql`
    CREATE TABLE profiles (
      owner text NOT NULL,
      name text NOT NULL,
      state text NOT NULL,
      updated_at bigint NOT NULL DEFAULT (extract(epoch FROM now()) * 1000)::bigint,
      PRIMARY KEY (owner, name)
    )`

  // `key` is the page's URL (and partition): hashed in the unique index, see above.
  yield* sql`
    CREATE TABLE scrape_cache (
      key text NOT NULL,
      url text NOT NULL,
      status_code integer NOT NULL,
      content_type text,
      body text NOT NULL,
      file text,
      cached_at bigint NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX scrape_cache_key ON scrape_cache ((md5(key)::uuid))`
  yield* sql`CREATE INDEX scrape_cache_cached_at ON scrape_cache (cached_at)`

  // The local search index, one page per owner ('' for none) and URL. `search` is the page's text search vector,
  // weighted title A, description B, content C, URL words D (ranked with weights at query time). Prose is stemmed
  // with the English configuration; the URL's words use 'simple' (no stemming, no stop words), since a host or a path
  // segment such as `other` or `about` is a name, not prose. Content past its first 200 000 characters is stored but
  // not indexed: a tsvector holds at most 1 MB, and the start of a page is what a search needs.
  yield* sql`
    CREATE TABLE search_index (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      owner text COLLATE "C" NOT NULL,
      url text NOT NULL,
      title text,
      description text,
      content text NOT NULL,
      url_words text NOT NULL,
      scraped_at bigint NOT NULL,
      search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(description, '')), 'B') ||
        setweight(to_tsvector('english', left(content, 200000)), 'C') ||
        setweight(to_tsvector('simple', url_words), 'D')
      ) STORED
    )`
  yield* sql`CREATE UNIQUE INDEX search_index_page ON search_index (owner, (md5(url)::uuid))`
  yield* sql`CREATE INDEX search_index_search ON search_index USING gin (search)`
  yield* sql`CREATE INDEX search_index_owner_scraped ON search_index (owner, scraped_at)`
  yield* sql`CREATE INDEX search_index_scraped ON search_index (scraped_at)`

  // The webhook outbox. Only a job's head (lowest seq) is ever leased, so a job's deliveries go out in order.
  yield* sql`
    CREATE TABLE deliveries (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text COLLATE "C" NOT NULL UNIQUE,
      job_id text COLLATE "C" NOT NULL,
      payload text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      not_before bigint NOT NULL DEFAULT 0,
      lease_owner text,
      lease_until bigint,
      created_at bigint NOT NULL
    )`
  // Finds each job's head (a skip scan over job_id) without reading the deliveries queued behind it.
  yield* sql`CREATE INDEX deliveries_job ON deliveries (job_id, seq)`

  // The politeness gates. No index on `opens_at`: every pass updates it, and unindexed the update stays HOT; the
  // purge that scans for open gates runs once a minute over a table of one row per host.
  yield* sql`
    CREATE TABLE gates (
      key text COLLATE "C" PRIMARY KEY,
      opens_at bigint NOT NULL
    ) WITH (fillfactor = 70)`

  // The large values (documents, cached bodies, indexed text) compressed with LZ4 rather than the default pglz: several
  // times faster to compress, which is most of what caching a 40 kB page costs the server. Servers before 14, or built
  // without LZ4, keep pglz.
  yield* sql`
    DO $$
    BEGIN
      ALTER TABLE documents ALTER COLUMN document SET COMPRESSION lz4;
      ALTER TABLE scrapes ALTER COLUMN document SET COMPRESSION lz4;
      ALTER TABLE scrape_cache ALTER COLUMN body SET COMPRESSION lz4;
      ALTER TABLE search_index ALTER COLUMN content SET COMPRESSION lz4;
    EXCEPTION WHEN OTHERS THEN NULL;
    END $$`
})
