import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery, createQueryId, Kysely, type KyselyPlugin, PostgresAdapter, PostgresDialect, type PluginTransformQueryArgs, type PluginTransformResultArgs,
  type LimitNode, type OffsetNode, type OperationNode, type QueryResult, type RootOperationNode, type SelectQueryBuilder, type TableNode, SqliteDialect, SqliteQueryCompiler, type UnknownRow, ValueNode,
} from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import pg from 'pg';
import { type Checkpointer, checkpointer } from './checkpointer';
import { type GroupCommit, groupCommit } from './group-commit';
import type { Database } from './schema';

export type Dialect = 'sqlite' | 'postgres';
export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the tables live in, when not the default (tests use one per file). */
  schema?: string;
  /** The driver underneath, for libraries that need it (rate limiter stores). */
  raw: { sqlite?: SQLite.Database; pool?: pg.Pool; commits?: GroupCommit; checkpoints?: Checkpointer };
  /** Counts writes to the tables a session lookup reads (see `WATCHED_TABLES`): caches of them compare it. */
  writes: WriteWatch;
  /**
   * Settles once every commit made before the call is on disk. PostgreSQL commits are durable when
   * they return; SQLite commits without waiting for the disk and shares one WAL fsync between every
   * commit made meanwhile (group commit, `src/server/db/group-commit.ts`). Answers wait for it.
   */
  durable(): Promise<void>;
}

/**
 * Tables whose rows make up a signed-in member as every request sees them (session, account,
 * profile, main photo, badge totals). Any write to one of them moves `WriteWatch.generation`.
 */
export const WATCHED_TABLES = new Set(['sessions', 'users', 'profiles', 'photos', 'chat_participants', 'likes']);

export interface WriteWatch {
  /** Moves on every write to a watched table through this handle (before it runs and after it ran). */
  generation: number;
  /** The same per table written (`*` for raw SQL writes, whose table is not known). */
  tables: Map<string, number>;
  /**
   * A write that names the members whose rows it changes (`preparedWrite`) moves only theirs: each is set
   * to the next `seq` (before the write runs and after it ran), and `generation` stays.
   */
  seq: number;
  members: Map<number, number>;
}

/** Most members `WriteWatch.members` remembers; beyond, it starts over and `generation` moves (every cache entry is then stale). */
const WATCHED_MEMBERS = 100_000;

/** Marks members' rows as changed now (a scoped write, or an invalidation from the event bus). */
export function markMembersChanged(watch: WriteWatch, members: readonly number[]) {
  if (watch.members.size >= WATCHED_MEMBERS) {
    watch.members.clear();
    watch.generation++;
  }
  for (const member of members) watch.members.set(member, ++watch.seq);
}

/** Whether a member's rows changed after `seq` (taken from `WriteWatch.seq`). */
export function memberChangedSince(watch: WriteWatch, member: number, seq: number): boolean {
  return (watch.members.get(member) ?? 0) > seq;
}

const newWriteWatch = (): WriteWatch => ({ generation: 0, tables: new Map(), seq: 0, members: new Map() });

/** Members a query's writes are limited to, by query id (`preparedWrite`). */
const scopedWrites = new WeakMap<object, readonly number[]>();

/**
 * Whether a database handle or transaction runs on PostgreSQL — for the repository functions that write
 * in one statement there (writing CTEs) what SQLite, which has none and no round trips, does in two.
 */
export function onPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A subquery's rows as one JSON array column (Kysely's helper of the database's dialect), so a list
 * comes back with the row that owns it instead of in a round trip of its own. Read it with `jsonRows`.
 */
export function jsonArrayFrom<O>(db: Kysely<Database>, rows: SelectQueryBuilder<never, never, O>) {
  return onPostgres(db) ? pgJsonArrayFrom(rows) : sqliteJsonArrayFrom(rows);
}
/** The rows of a `jsonArrayFrom` column: PostgreSQL hands back the array, SQLite its JSON text. */
export function jsonRows<O>(value: unknown): O[] {
  return typeof value === 'string' ? (JSON.parse(value) as O[]) : ((value as O[] | null) ?? []);
}

/** A boolean SQL expression's value as both databases answer it: PostgreSQL `true`, SQLite `1`. */
export function sqlTrue(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

/** A number that changes whenever one of these tables (or an unknown one) was written through the handle. */
export function tablesGeneration(watch: WriteWatch, tables: string[]): number {
  let sum = watch.tables.get('*') ?? 0;
  for (const table of tables) sum += watch.tables.get(table) ?? 0;
  return sum;
}

function tableOf(node: RootOperationNode): string | null {
  const ref = node.kind === 'InsertQueryNode' ? node.into : node.kind === 'UpdateQueryNode' || node.kind === 'DeleteQueryNode' ? (node.kind === 'UpdateQueryNode' ? node.table : node.from.froms[0]) : null;
  if (!ref) return null;
  const inner = ref.kind === 'AliasNode' ? (ref as unknown as { node: OperationNode }).node : ref;
  const table = inner.kind === 'TableNode' ? (inner as TableNode) : null;
  return table ? table.table.identifier.name : '*';
}

/**
 * The tables a query writes: its own, and those of the writing statements in its WITH clause (PostgreSQL);
 * `*` for raw SQL that is not a plain read, whose table is not known.
 */
function tablesWritten(node: RootOperationNode | OperationNode): string[] {
  if (node.kind === 'RawNode') {
    return /^\s*(select|explain|pragma|with)\b/i.test((node as RootOperationNode & { sqlFragments: string[] }).sqlFragments[0] ?? '') ? [] : ['*'];
  }
  const written = node.kind === 'InsertQueryNode' || node.kind === 'UpdateQueryNode' || node.kind === 'DeleteQueryNode' ? [tableOf(node as RootOperationNode) ?? '*'] : [];
  const withNode = (node as { with?: { expressions: readonly { expression: OperationNode }[] } }).with;
  for (const cte of withNode?.expressions ?? []) written.push(...tablesWritten(cte.expression));
  return written;
}

/**
 * A Kysely plugin that moves the generation when a query writes to a watched table, so a cache
 * filled before the write is never used after it. Raw SQL that is not a plain read counts as a write.
 */
function writeWatchPlugin(watch: WriteWatch): KyselyPlugin {
  const writing = new WeakMap<object, string[]>();
  const bump = (table: string, members: readonly number[] | undefined) => {
    watch.tables.set(table, (watch.tables.get(table) ?? 0) + 1);
    if (table !== '*' && !WATCHED_TABLES.has(table)) return;
    if (members && table !== '*') markMembersChanged(watch, members);
    else watch.generation++;
  };
  return {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      const tables = tablesWritten(node);
      if (tables.length) {
        for (const table of tables) bump(table, scopedWrites.get(queryId));
        writing.set(queryId, tables);
      }
      return node;
    },
    async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      for (const table of writing.get(queryId) ?? []) bump(table, scopedWrites.get(queryId));
      return result;
    },
  };
}

// BIGINT (epoch milliseconds) and COUNT() come back as numbers, as they do from SQLite.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * Kysely prepares a fresh statement for every query; preparing costs more than running a small
 * query, so statements are kept by their SQL text (queries are parameterised, so the set is small).
 */
function withStatementCache(sqlite: SQLite.Database, onCommit: () => void, onClose: () => void, max = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop === 'close') {
        return () => {
          onClose();
          return target.close();
        };
      }
      if (prop !== 'prepare') {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          statement = countCommits(target, source, target.prepare(source), onCommit);
          if (cache.size >= max) cache.delete(cache.keys().next().value as string);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

/**
 * A writing statement that leaves no transaction open has committed (a COMMIT, or a write in
 * autocommit mode): `onCommit` counts it for the group commit. Reads pass through untouched.
 */
function countCommits(sqlite: SQLite.Database, source: string, statement: SQLite.Statement, onCommit: () => void): SQLite.Statement {
  // SQLite calls COMMIT (and RELEASE) read-only: they write nothing themselves, they end the transaction.
  if (statement.readonly && !/^\s*(commit|end|release)\b/i.test(source)) return statement;
  return new Proxy(statement, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'run' && prop !== 'all' && prop !== 'get') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!sqlite.inTransaction) onCommit();
        return result;
      };
    },
  });
}

const directSqlite = new WeakMap<object, SQLite.Database>();
/**
 * The (statement-caching) better-sqlite3 handle behind a Kysely instance, for the few hot reads that
 * run Kysely-compiled SQL synchronously; null for PostgreSQL and inside transactions.
 */
export function directSqliteOf(db: object): SQLite.Database | null {
  return directSqlite.get(db) ?? null;
}

/** Most statements one PostgreSQL connection keeps prepared (the app's parameterised queries are far fewer). */
const PREPARED_PER_CONNECTION = 400;

/**
 * Every pooled PostgreSQL connection prepares each data statement it runs once, by name, and then only
 * binds and executes it: PostgreSQL parses and plans the app's queries once per connection instead of on
 * every call (a chat send runs a dozen; `select` of a catalog row: 181–199 → 101–116 µs a query on a
 * 2-CPU machine). Only select/insert/update/delete/with statements, at most PREPARED_PER_CONNECTION per
 * connection (texts beyond stay unnamed). A prepared statement whose tables changed shape under it (a
 * migration by another process during a rolling deploy) fails with "cached plan must not change result
 * type": that text is then never prepared again in this process, and the call is retried once unnamed
 * (inside a transaction the retry fails too, as the transaction is aborted: that request fails once).
 */
function prepareStatements(pool: pg.Pool) {
  const unpreparable = new Set<string>();
  pool.on('connect', (client) => {
    const names = new Map<string, string | null>();
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
    const nameOf = (text: string): string | null => {
      let name = names.get(text);
      if (name === undefined) {
        name = names.size < PREPARED_PER_CONNECTION && /^\s*(select|insert|update|delete|with)\b/i.test(text) ? `kd${names.size}` : null;
        names.set(text, name);
      }
      return name;
    };
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const [text, values] = args;
      if (typeof text !== 'string' || !Array.isArray(values) || args.length !== 2) return query(...args);
      const name = unpreparable.has(text) ? null : nameOf(text);
      if (!name) return query(text, values);
      return query({ name, text, values }).catch((err: { code?: string; message?: string }) => {
        if (err?.code !== '0A000' || !/cached plan/.test(err.message ?? '')) throw err;
        unpreparable.add(text);
        return query(text, values);
      });
    };
  });
}

/** Opens the database named by a URL: `sqlite:<file>` / `sqlite::memory:` or `postgres://…`. */
export function openDatabase(url: string): Db {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({ connectionString: url, max: Number(process.env.PG_POOL_SIZE ?? 10) });
    prepareStatements(pool);
    const writes = newWriteWatch();
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [writeWatchPlugin(writes)] }), dialect: 'postgres', raw: { pool }, writes,
      durable: () => Promise.resolve(),
    };
  }
  const file = url.replace(/^sqlite:(\/\/)?/, '') || ':memory:';
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL: a commit does not wait for the disk (FULL cost one WAL fsync per commit, on the event
  // loop, so every write waited behind the previous one's fsync). Durability comes from the group
  // commit instead: an answer after a write waits for `durable()`, which syncs the WAL once for every
  // commit made meanwhile — so no credit or payment write that was reported is lost on a power cut.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Reads from memory: a page cache of SQLITE_CACHE_MB (64; SQLite's own default is 2 MiB, so a member's
  // first view read most pages of their rows again through a system call each) and the file mapped up to
  // 256 MiB (pages read in place, not copied). See docs/performance.md, "First views".
  sqlite.pragma(`cache_size = -${Math.round(Number(process.env.SQLITE_CACHE_MB ?? 64) * 1024)}`);
  if (file !== ':memory:') sqlite.pragma(`mmap_size = ${256 * 1024 * 1024}`);
  const synced = groupCommit(file === ':memory:' ? null : `${path.resolve(file)}-wal`);
  // Checkpoints on a worker thread (src/server/db/checkpointer.ts), not inside a commit on the event loop.
  const checkpoints = file === ':memory:' ? undefined : checkpointer(sqlite, path.resolve(file));
  const commits: GroupCommit = {
    ...synced,
    committed() {
      synced.committed();
      checkpoints?.committed();
    },
  };
  const cached = withStatementCache(sqlite, commits.committed, () => checkpoints?.close());
  const writes = newWriteWatch();
  const db = new Kysely<Database>({ dialect: waitingForCheckpoints(withCastBounds(new SqliteDialect({ database: cached })), checkpoints), plugins: [writeWatchPlugin(writes)] });
  directSqlite.set(db, cached);
  return { db, dialect: 'sqlite', raw: { sqlite, commits, checkpoints }, writes, durable: commits.durable };
}


/**
 * SQLite's compiler writing a LIMIT or OFFSET value as `cast(? as integer)`. SQLite reads a bare `limit ?`'s
 * value when it plans the statement, so binding it marks the statement expired and every execution
 * re-prepares it — the whole statement parsed and planned again, 5 µs for a small query and 20 µs for each
 * list of /likes (59 → 19 µs for its statement). The cast is an expression SQLite does not look into.
 */
export class CastBoundsCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit ');
    this.#integer(node.limit);
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset ');
    this.#integer(node.offset);
  }

  #integer(value: OperationNode): void {
    const cast = ValueNode.is(value);
    if (cast) this.append('cast(');
    this.visitNode(value);
    if (cast) this.append(' as integer)');
  }
}

function withCastBounds(dialect: SqliteDialect): SqliteDialect {
  dialect.createQueryCompiler = () => new CastBoundsCompiler();
  return dialect;
}

/**
 * Kysely's SQLite dialect whose queries, before taking the connection, wait while a checkpoint meant to
 * restart the WAL runs (`Checkpointer.running`): that checkpoint can copy every frame only while nothing is
 * written, and a WAL that never starts from its beginning again grows until SQLite's own checkpoint runs
 * inside a commit on the event loop (10–130 ms, every 10,000 frames). The synchronous hot reads
 * (`hotQuery`) do not wait: they write nothing.
 */
function waitingForCheckpoints(dialect: SqliteDialect, checkpoints: Checkpointer | undefined): SqliteDialect {
  if (!checkpoints) return dialect;
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    driver.acquireConnection = async () => {
      const running = checkpoints.running();
      if (running) await running;
      return acquire();
    };
    return driver;
  };
  return dialect;
}

/** What a prepared query's `build` returns: any Kysely query builder (`compile()` gives its SQL). */
type Compilable<Row> = { compile(): CompiledQuery<Row> };

/**
 * `build` compiled once per database (its dialect adapter, shared by the database's transactions), then
 * each call swaps the real values into the placeholders' places. Placeholders must be values the query
 * does not otherwise contain (e.g. -424242, '\u0000token'), passed to the builder unchanged.
 */
function compiledOnce<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>, placeholders: Args) {
  const byAdapter = new WeakMap<object, CompiledQuery<Row>>();
  return (db: Kysely<Database>, args: Args): CompiledQuery<Row> => {
    const executor = db.getExecutor();
    let compiled = byAdapter.get(executor.adapter);
    if (!compiled) {
      // Compiled without plugins: compiling is no write (the write watch sees each call's query).
      compiled = build(db.withoutPlugins(), ...placeholders).compile();
      byAdapter.set(executor.adapter, compiled);
    }
    const parameters = compiled.parameters.map((p) => {
      const slot = placeholders.indexOf(p as Args[number]);
      return slot === -1 ? p : args[slot];
    });
    return { query: compiled.query, sql: compiled.sql, parameters, queryId: createQueryId() };
  };
}

/**
 * A query of a hot path (a chat send runs a dozen), built and compiled by Kysely once instead of on every
 * call — building and compiling cost more than running most of these queries. It runs through the database's
 * or transaction's executor like any Kysely query, plugins (the write watch) included. See `compiledOnce`
 * for the placeholders.
 */
export function preparedQuery<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>, placeholders: Args) {
  const run = preparedRunner(build, placeholders);
  return (db: Kysely<Database>, ...args: Args): Promise<QueryResult<Row>> => run(db, args);
}

/** Runs `build`'s compiled query through the executor (plugins included), its writes scoped to `members` if given. */
function preparedRunner<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>, placeholders: Args) {
  const compile = compiledOnce(build, placeholders);
  return (db: Kysely<Database>, args: Args, members?: readonly number[]): Promise<QueryResult<Row>> => {
    const compiled = compile(db, args);
    if (members) scopedWrites.set(compiled.queryId, members);
    const executor = db.getExecutor();
    executor.transformQuery(compiled.query, compiled.queryId);
    return executor.executeQuery<Row>(compiled);
  };
}

/**
 * A `preparedQuery` whose writes change only the named members' rows among the tables a session lookup
 * reads (`WATCHED_TABLES`): the write watch then marks only those members changed instead of moving the
 * generation every cached session depends on. The caller names every member whose user row, profile,
 * photos, chat rows or likes the statement can change.
 */
export function preparedWrite<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>, placeholders: Args) {
  const run = preparedRunner(build, placeholders);
  return (db: Kysely<Database>, members: readonly number[], ...args: Args): Promise<QueryResult<Row>> => run(db, args, members);
}

/**
 * A read that runs on every request, prepared as `preparedQuery`. On SQLite, outside transactions, it
 * runs synchronously on the statement-caching handle (Kysely's async path costs more than the query itself).
 */
export function hotQuery<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<unknown>, placeholders: Args) {
  const compile = compiledOnce(build, placeholders);
  return async (db: Kysely<Database>, ...args: Args): Promise<Row | undefined> => {
    const { sql, parameters } = compile(db, args);
    const direct = directSqliteOf(db);
    return direct
      ? (direct.prepare(sql).get(...parameters) as Row | undefined)
      : (await db.executeQuery<Row>(CompiledQuery.raw(sql, [...parameters]))).rows[0];
  };
}
