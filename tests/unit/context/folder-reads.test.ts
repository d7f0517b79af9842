import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { folderEntries, stampedText } from "@/lib/context/folder-reads";
import { makeTempHome } from "../../support/temp-home";

const temp = makeTempHome();

describe("folder reads for model requests", () => {
  it("answers no entries for a missing folder or a file in its place, and the entries of a real one", () => {
    const folder = path.join(temp.home, "reads", "folder");
    expect(folderEntries(folder)).toEqual([]);
    fs.mkdirSync(path.dirname(folder), { recursive: true });
    fs.writeFileSync(folder, "not a folder");
    expect(folderEntries(folder)).toEqual([]);
    fs.rmSync(folder);
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "a.md"), "a");
    expect(folderEntries(folder).map((entry) => entry.name)).toEqual(["a.md"]);
  });

  it("reads a file again once it changes, and answers null once it is gone", () => {
    const file = path.join(temp.home, "reads", "AGENTS.md");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    expect(stampedText(file)).toBeNull();
    fs.writeFileSync(file, "first");
    expect(stampedText(file)?.text).toBe("first");
    fs.writeFileSync(file, "second, longer");
    expect(stampedText(file)?.text).toBe("second, longer");
    // Same size, another file put in its place (as an editor's atomic save does).
    fs.writeFileSync(`${file}.tmp`, "third, longer!");
    fs.renameSync(`${file}.tmp`, file);
    expect(stampedText(file)?.text).toBe("third, longer!");
    fs.rmSync(file);
    expect(stampedText(file)).toBeNull();
  });
});
