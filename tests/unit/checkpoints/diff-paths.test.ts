import { expect, it } from "vitest";
import { pathOf } from "@/components/checkpoints/diff-view";
it("a diff file's path is the one the turn's changes name: git's trailing tab and C quoting undone", () => {
  const f = (newPath: string) => pathOf({ type: "modify", oldPath: newPath, newPath } as never);
  expect(f("a/b.txt")).toBe("a/b.txt");
  expect(f("my file.txt\t")).toBe("my file.txt");
  expect(f('"q\\"t.txt"')).toBe('q"t.txt');
  expect(f('"caf\\303\\251.txt"')).toBe("café.txt");
  expect(f('"tab\\there"')).toBe("tab\there");
});
