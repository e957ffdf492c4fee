/**
 * Write transactions that take SQLite's write lock at BEGIN (`BEGIN IMMEDIATE`). `sql.withTransaction` uses a
 * deferred BEGIN: a transaction that reads and then writes, while another process committed in between, fails at
 * once with SQLITE_BUSY (the busy timeout cannot help a stale snapshot). Taking the lock first makes a second
 * process wait (up to `busy_timeout`) instead, so several processes can share one database file.
 */
import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Effect, Scope } from "effect"

const run = (conn: Connection, statement: string) => Effect.asVoid(conn.executeUnprepared(statement, [], undefined))

export const make = Effect.map(SqlClient.SqlClient, (sql) =>
  SqlClient.makeWithTransaction({
    transactionTag: SqlClient.TransactionConnection,
    spanAttributes: [["db.system.name", "sqlite"]],
    acquireConnection: Effect.flatMap(Scope.make(), (scope) =>
      Effect.map(Scope.extend(sql.reserve, scope), (conn) => [scope, conn] as const),
    ),
    begin: (conn) => run(conn, "BEGIN IMMEDIATE"),
    savepoint: (conn, id) => run(conn, `SAVEPOINT effect_sql_${id}`),
    commit: (conn) => run(conn, "COMMIT"),
    // ROLLBACK only fails when no transaction is open (BEGIN itself failed): nothing to undo then.
    rollback: (conn) => Effect.ignore(run(conn, "ROLLBACK")),
    rollbackSavepoint: (conn, id) => run(conn, `ROLLBACK TO SAVEPOINT effect_sql_${id}`),
  }),
)
