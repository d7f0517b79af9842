import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/api/openapi";
import { errorResponse } from "@/lib/api/respond";
import { storageError } from "@/lib/errors";

const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

describe("storage fault codes (DESIGN §2, §8)", () => {
  it("map ENOSPC and EDQUOT to 507 storage_full and other I/O errors to 503 storage_error, with {error}", async () => {
    for (const [code, status, name] of [["ENOSPC", 507, "storage_full"], ["EDQUOT", 507, "storage_full"], ["EIO", 503, "storage_error"]] as const) {
      const response = errorResponse(storageError(errno(code), "a record"));
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(name);
    }
  });

  it("are listed for every writing operation in the OpenAPI document", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const writes = Object.values(paths).flatMap((operations) => Object.entries(operations).filter(([method]) => method !== "get"));
    expect(writes.length).toBeGreaterThan(5);
    for (const [, operation] of writes) expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["503", "507"]));
  });
});
