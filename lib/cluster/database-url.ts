import type { AtriumConfig } from "../config/config";

/** ATRIUM_DATABASE_URL, else config database.url; null: a single node on files (DESIGN §10c). */
export function databaseUrlOf(config: AtriumConfig, env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  return env.ATRIUM_DATABASE_URL || config.database.url || null;
}
