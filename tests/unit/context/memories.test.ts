import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { forget, readMemories, remember, selectMemories } from "@/lib/context/memories";
import { makeTempHome } from "../../support/temp-home";

const temp = makeTempHome();
afterEach(() => fs.rmSync(path.join(temp.home, "memory"), { recursive: true, force: true }));

describe("memories", () => {
  it("remembers, replaces by title and forgets as Markdown files", () => {
    const folder = path.join(temp.home, "memory", "default");
    remember(folder, "Deploy target", "We deploy to fly.io");
    remember(folder, "Deploy target", "We deploy to a VPS now");
    expect(readMemories(folder).map((memory) => [memory.title, memory.text])).toEqual([["Deploy target", "We deploy to a VPS now"]]);
    expect(fs.readFileSync(path.join(folder, "deploy-target.md"), "utf8")).toBe("# Deploy target\n\nWe deploy to a VPS now\n");
    expect(forget(folder, "Deploy target")).toBe(true);
    expect(forget(folder, "Deploy target")).toBe(false);
    expect(readMemories(folder)).toEqual([]);
  });

  it("puts the most relevant memories first within the budget", () => {
    const memories = [
      { title: "Coffee", text: "The owner drinks espresso", modifiedAt: 3 },
      { title: "Database", text: "Postgres runs on port 5433 in development", modifiedAt: 1 },
      { title: "Style", text: "Use tabs in Go code", modifiedAt: 2 },
    ];
    const chosen = selectMemories(memories, "why does the postgres database refuse connections?", 1000);
    expect(chosen[0].title).toBe("Database");
    expect(chosen.map((memory) => memory.title)).toEqual(["Database", "Coffee", "Style"]);
    const tight = selectMemories(memories, "postgres database", 16);
    expect(tight.map((memory) => memory.title)).toEqual(["Database"]);
  });
});
