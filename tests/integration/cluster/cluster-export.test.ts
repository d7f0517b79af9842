import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/store/canonical-json";
import { Store } from "@/lib/store/store";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { makeTempHome } from "../../support/temp-home";
import { runAtrium } from "../cli/run-atrium";
import { createConversation } from "../store/conversation-fixtures";

const cluster = usePostgresPerFile();

/** An export unpacked: each file by its path, JSONL files as their records (canonical JSON), others as bytes. */
async function unpack(bundle: string): Promise<Map<string, string[] | Buffer>> {
  const directory = fs.mkdtempSync(`${bundle}-x-`);
  await tar.x({ file: bundle, cwd: directory });
  const contents = new Map<string, string[] | Buffer>();
  for (const entry of fs.readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(directory, absolute);
    const lines = fs.readFileSync(absolute, "utf8").split("\n");
    lines.pop();
    contents.set(relative, relative.endsWith(".jsonl") ? lines.map((line) => canonicalJson(JSON.parse(line))) : fs.readFileSync(absolute));
  }
  return contents;
}

describe("atrium export on a cluster node", () => {
  let home: string;
  let elsewhere: string;
  const cleanups: Array<() => void> = [];

  beforeEach(() => {
    const source = makeTempHome("atrium-export-source-");
    const node = makeTempHome("atrium-export-node-");
    home = source.home;
    elsewhere = node.home;
    cleanups.push(source.cleanup, node.cleanup);
  });
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it("gives the same bundle as the files it was migrated from, and that bundle imports both ways", async () => {
    const store = new Store(home, { log: () => undefined });
    const parent = await createConversation(store, { title: "Parent", texts: ["one", "two"] });
    const child = await createConversation(store, { title: "Child", texts: ["three"], forkedFrom: { conversationId: parent.conversationId, itemId: null } });
    const artifactId = store.newId();
    fs.mkdirSync(store.paths.artifacts(parent.conversationId), { recursive: true });
    fs.writeFileSync(store.paths.artifact(parent.conversationId, artifactId), Buffer.from("a long tool output\n".repeat(500)));
    await store.close();
    expect((await runAtrium(["migrate", "--to", cluster.postgres.url], { home })).status).toBe(0);

    const fromFiles = path.join(home, "files.tar.gz");
    const fromCluster = path.join(elsewhere, "cluster.tar.gz");
    const filesRun = await runAtrium(["export", child.conversationId, "--with-ancestors", "-o", fromFiles], { home });
    const clusterRun = await runAtrium(["export", child.conversationId, "--with-ancestors", "-o", fromCluster], {
      home: elsewhere,
      env: { ATRIUM_DATABASE_URL: cluster.postgres.url },
    });
    expect(clusterRun.stderr).toBe("");
    expect(clusterRun.status).toBe(0);
    expect(clusterRun.stdout).toBe(filesRun.stdout.replace(fromFiles, fromCluster));
    const [files, clustered] = await Promise.all([unpack(fromFiles), unpack(fromCluster)]);
    expect([...clustered.keys()].sort()).toEqual([...files.keys()].sort());
    expect(clustered).toEqual(files);
    expect(clustered.has(`${parent.conversationId}/artifacts/${artifactId}`)).toBe(true);

    // Back into the data directory it came from: the same conversations, nothing to do.
    const back = await runAtrium(["import", fromCluster], { home });
    expect(back.status).toBe(0);
    expect(back.stdout).toContain(`Unchanged ${child.conversationId} "Child"; already up to date`);
    expect(back.stdout).toContain(`Unchanged ${parent.conversationId} "Parent"; already up to date`);
    // Into another one: both appear.
    const fresh = makeTempHome("atrium-export-fresh-");
    cleanups.push(fresh.cleanup);
    const imported = await runAtrium(["import", fromCluster], { home: fresh.home });
    expect(imported.status).toBe(0);
    expect(imported.stdout).toContain(`Imported ${parent.conversationId} "Parent"`);
    expect(imported.stdout).toContain(`Imported ${child.conversationId} "Child"`);
  });

  it("an id the cluster does not hold fails as it does from files, and no archive is left", async () => {
    const missing = "01M8XSG3GJBB4JWEN4A7E8HPDB";
    const output = path.join(elsewhere, "none.tar.gz");
    const fromCluster = await runAtrium(["export", missing, "-o", output], { home: elsewhere, env: { ATRIUM_DATABASE_URL: cluster.postgres.url } });
    const fromFiles = await runAtrium(["export", missing, "-o", output], { home });
    expect(fromCluster.status).toBe(fromFiles.status);
    expect(fromCluster.status).not.toBe(0);
    expect(fromCluster.stderr).toBe(fromFiles.stderr);
    expect(fs.existsSync(output)).toBe(false);
  });
});
