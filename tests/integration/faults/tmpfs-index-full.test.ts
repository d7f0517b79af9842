import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/api/respond";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { waitUntil } from "../../support/wait-until";
import { expectAllConsistent, expectTakesNewMessage } from "./consistency";

/**
 * Issue 22, on a real disk: ATRIUM_HOME on a tiny tmpfs filled up until one page is left.
 * The message's JSONL line fits in it, the index's WAL frames do not, so SQLite itself fails
 * with SQLITE_FULL. Mounting needs root; elsewhere the test is skipped.
 */
const PAGE = 4096;
const canMount = process.platform === "linux" && process.getuid?.() === 0;

let harness: Harness | null = null;
let mountPoint: string | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
  if (mountPoint) {
    execFileSync("umount", [mountPoint]);
    fs.rmdirSync(mountPoint);
    mountPoint = null;
  }
});

function mountTmpfs(megabytes: number): string | null {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${megabytes}m,mode=0700`, "tmpfs", directory], { stdio: "pipe" });
    return directory;
  } catch {
    fs.rmdirSync(directory);
    return null;
  }
}

/** Writes `filePath` until the disk refuses another page. */
function fillDisk(filePath: string): void {
  const descriptor = fs.openSync(filePath, "w");
  const page = Buffer.alloc(PAGE, 0x61);
  try {
    for (;;) {
      if (fs.writeSync(descriptor, page) < PAGE) return;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    fs.closeSync(descriptor);
  }
}

describe.skipIf(!canMount)("a real full tmpfs under the index", () => {
  it("answers 507 storage_full when the index cannot grow, keeps the flushed message, and indexes it once there is space", async (context) => {
    mountPoint = mountTmpfs(16);
    if (!mountPoint) return context.skip();
    harness = await startHarness({}, mountPoint);
    const created = await harness.runtime.createConversation({ text: "hello" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    // An empty WAL: the next index transaction needs new pages for its header and frames (over one page).
    harness.runtime.store.index.$client.pragma("wal_checkpoint(TRUNCATE)");
    const onePage = path.join(mountPoint, "one-page");
    fs.writeFileSync(onePage, Buffer.alloc(PAGE));
    const filler = path.join(mountPoint, "filler");
    fillDisk(filler);
    fs.rmSync(onePage);

    const error = await harness.runtime.sendMessage(id, { text: "written to a full disk", mode: "auto" }).then(
      () => new Error("the send succeeded on a full disk"),
      (caught: unknown) => caught,
    );
    const response = errorResponse(error);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect({ status: response.status, code: body.error.code }).toEqual({ status: 507, code: "storage_full" });
    const sessionFile = path.join(mountPoint, "conversations", id, `${created.conversation.rootSessionId}.jsonl`);
    expect(fs.readFileSync(sessionFile, "utf8")).toContain("written to a full disk");
    expect(body.error.message).toContain("SQLITE_FULL");

    fs.rmSync(filler);
    await waitUntil(() => harness!.items(id).some((item) => item.text === "written to a full disk"), "the index to catch up once there is space");
    await expectTakesNewMessage(harness, id);
    expectAllConsistent(harness);
  });
});
