import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A fresh ATRIUM_HOME for one test; removed by the returned cleanup. `parent` defaults to the OS temp dir. */
export function makeTempHome(prefix = "atrium-test-", parent = os.tmpdir()): { home: string; cleanup: () => void } {
  const home = fs.mkdtempSync(path.join(parent, prefix));
  return { home, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}
