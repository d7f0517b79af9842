import type { BuildColumns, ColumnBuilderBase, HasDefault, IsPrimaryKey, NotNull } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  pgTableCreator,
  uniqueIndex,
  primaryKey,
  type PgBigInt53BuilderInitial,
  type PgBooleanBuilderInitial,
  type PgColumnBuilderBase,
  type PgCustomColumnBuilder,
  type PgTableWithColumns,
} from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as sqlite from "../schema";
import { databaseText, parseDatabaseText } from "./database-json";

/**
 * The index tables of a cluster (DESIGN §10c, issue 24), derived from the one declaration in
 * lib/store/schema.ts: same tables, columns, keys, defaults and indexes, in PostgreSQL's types.
 * PostgresIndexReads reads them (answering as SqliteIndexReads does: index-reads-contract.test.ts).
 * An owner writes its conversation's rows with its records (IndexReplica.ownRows: its node's SQLite
 * replica derives them, index-row-capture.ts captures them, index-row-write.ts writes them), and
 * `atrium migrate` a copied conversation's (conversation-index-rows.ts).
 *
 * - Names carry PG_INDEX_PREFIX: the cluster shares the database's namespace (and already has an
 *   `atrium_sessions` table of browser sessions), and PostgreSQL's index names share it too.
 * - SQLite's INTEGER is 64-bit: `bigint` read as a JS number; a boolean stays a boolean.
 * - Text is `COLLATE "C"`: ordered by bytes as SQLite's BINARY collation orders it, so a list
 *   sorted by title or model (and any cursor) comes out in the same order on both backends,
 *   whatever the database's locale.
 * - Text holds no U+0000 or lone surrogate in PostgreSQL: the columns store such strings through
 *   databaseText (database-json.ts) and read them back, as every jsonb value goes through
 *   databaseJson. (Such a string then sorts after its prefix's other strings, not before.)
 * The full-text tables (FTS5's, which drizzle has no type for) have their PostgreSQL form in
 * search-tables.ts: FTS5's tokens as a stream and a tsvector (search-tokens.ts, postgres-search.ts).
 */
export const PG_INDEX_PREFIX = "atrium_index_";

const indexTable = pgTableCreator((name) => `${PG_INDEX_PREFIX}${name}`);

/** `text COLLATE "C"`: see above; written and read through databaseText (NUL and lone surrogates kept). */
const byteText = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
  toDriver: databaseText,
  fromDriver: parseDatabaseText,
});

type ByteTextBuilder<Name extends string> = PgCustomColumnBuilder<{
  name: Name;
  dataType: "custom";
  columnType: "PgCustomColumn";
  data: string;
  driverParam: string;
  enumValues: undefined;
}>;

type ColumnConfig<Column> = Column extends SQLiteColumn<infer Config> ? Config : never;

/** The PostgreSQL builder of a SQLite column's type, before its constraints. */
type PgBase<Config> = Config extends { name: infer Name extends string; columnType: infer Type }
  ? Type extends "SQLiteBoolean"
    ? PgBooleanBuilderInitial<Name>
    : Type extends "SQLiteInteger"
      ? PgBigInt53BuilderInitial<Name>
      : ByteTextBuilder<Name>
  : never;

type WithNotNull<Builder extends ColumnBuilderBase, Config> = Config extends { notNull: true } ? NotNull<Builder> : Builder;
type WithDefault<Builder extends ColumnBuilderBase, Config> = Config extends { hasDefault: true } ? HasDefault<Builder> : Builder;
type WithPrimaryKey<Builder extends ColumnBuilderBase, Config> = Config extends { isPrimaryKey: true } ? IsPrimaryKey<Builder> : Builder;

/** The PostgreSQL column builder a SQLite column becomes, constraints and all. */
export type PgBuilderOf<Column> = WithPrimaryKey<WithDefault<WithNotNull<PgBase<ColumnConfig<Column>>, ColumnConfig<Column>>, ColumnConfig<Column>>, ColumnConfig<Column>>;

type PgBuilders<Table extends SQLiteTable> = { [Key in keyof Table["_"]["columns"]]: PgBuilderOf<Table["_"]["columns"][Key]> };

/** The PostgreSQL table a SQLite index table becomes (its row types are the SQLite table's). */
export type PgIndexTable<Table extends SQLiteTable> = PgTableWithColumns<{
  name: Table["_"]["name"];
  schema: undefined;
  columns: BuildColumns<Table["_"]["name"], PgBuilders<Table>, "pg">;
  dialect: "pg";
}>;

function pgColumn(column: SQLiteColumn): PgColumnBuilderBase {
  const base =
    column.columnType === "SQLiteBoolean"
      ? boolean(column.name)
      : column.columnType === "SQLiteInteger"
        ? bigint(column.name, { mode: "number" })
        : column.columnType === "SQLiteText"
          ? byteText(column.name)
          : unsupported(column);
  let builder = column.notNull ? base.notNull() : base;
  if (column.hasDefault) builder = builder.default(column.default as never);
  return column.primary ? builder.primaryKey() : builder;
}

function unsupported(column: SQLiteColumn): never {
  throw new Error(`index column ${column.name} has SQLite type ${column.columnType}, which lib/store/postgres/index-tables.ts does not map to PostgreSQL yet`);
}

/** One SQLite index table as a PostgreSQL table: its columns, composite primary key and indexes. */
export function pgIndexTable<Table extends SQLiteTable>(table: Table): PgIndexTable<Table> {
  const config = getTableConfig(table);
  // Not mapped (none is declared today): refused rather than left out of the PostgreSQL tables.
  const unmapped = [...config.foreignKeys, ...config.checks, ...config.uniqueConstraints, ...config.indexes.filter((declared) => declared.config.where)];
  if (unmapped.length > 0) throw new Error(`index table ${config.name} declares a foreign key, check, unique constraint or partial index, which lib/store/postgres/index-tables.ts does not map to PostgreSQL yet`);
  const keys = new Map(Object.entries(table).filter(([, value]) => config.columns.includes(value as SQLiteColumn)).map(([key, value]) => [value as SQLiteColumn, key]));
  const columns = Object.fromEntries(config.columns.map((column) => [keys.get(column)!, pgColumn(column)]));
  return indexTable(config.name, columns, (self) => {
    const of = (column: unknown) => self[keys.get(column as SQLiteColumn)!]!;
    return [
      ...config.primaryKeys.map((key) => primaryKey({ columns: key.columns.map(of) as [ReturnType<typeof of>, ...Array<ReturnType<typeof of>>] })),
      ...config.indexes.map(({ config: declared }) => {
        const named = (declared.unique ? uniqueIndex : index)(`${PG_INDEX_PREFIX}${declared.name}`);
        return named.on(...(declared.columns.map(of) as [ReturnType<typeof of>, ...Array<ReturnType<typeof of>>]));
      }),
    ];
  }) as unknown as PgIndexTable<Table>;
}

export const conversations = pgIndexTable(sqlite.conversations);
export const sessions = pgIndexTable(sqlite.sessions);
export const turns = pgIndexTable(sqlite.turns);
export const items = pgIndexTable(sqlite.items);
export const waiting = pgIndexTable(sqlite.waiting);
export const approvals = pgIndexTable(sqlite.approvals);
export const questions = pgIndexTable(sqlite.questions);
export const objectives = pgIndexTable(sqlite.objectives);
export const compactions = pgIndexTable(sqlite.compactions);
export const requestKeys = pgIndexTable(sqlite.requestKeys);
