import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/api/respond";
import { indexStorageError, storageError } from "@/lib/errors";

const sqlite = (code: string) => new Database.SqliteError(`${code}: injected`, code);

describe("index fault codes (issue 22)", () => {
  it("map SQLITE_FULL to 507 storage_full and SQLite I/O, read-only, open and corruption errors to 503 storage_error", async () => {
    for (const [code, status, name] of [
      ["SQLITE_FULL", 507, "storage_full"],
      ["SQLITE_IOERR", 503, "storage_error"],
      ["SQLITE_IOERR_WRITE", 503, "storage_error"],
      ["SQLITE_IOERR_FSYNC", 503, "storage_error"],
      ["SQLITE_READONLY", 503, "storage_error"],
      ["SQLITE_CANTOPEN", 503, "storage_error"],
      ["SQLITE_CORRUPT", 503, "storage_error"],
    ] as const) {
      const response = errorResponse(indexStorageError(sqlite(code), "conversation X"));
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(name);
      expect(body.error.message).toContain("the record is saved");
    }
  });

  it("leave errors that are not the disk's (a constraint, a bug) to answer 500", () => {
    expect(indexStorageError(sqlite("SQLITE_CONSTRAINT_PRIMARYKEY"), "conversation X")).toBeNull();
    expect(indexStorageError(new Error("boom"), "conversation X")).toBeNull();
  });

  it("count SQLITE_FULL as a full disk wherever a storage error is named", () => {
    expect(storageError(sqlite("SQLITE_FULL"), "a record").code).toBe("storage_full");
  });
});
