import { describe, expect, it } from "vitest";
import { pathInside } from "@/lib/store/safe-path";
import { toolEnvironment } from "@/lib/tools/tool-environment";

describe("toolEnvironment", () => {
  const server = {
    PATH: "/usr/bin",
    HOME: "/home/owner",
    LANG: "C.UTF-8",
    ATRIUM_TOKEN: "secret-token",
    ATRIUM_HOME: "/data",
    OPENAI_API_KEY: "sk-1",
    GITHUB_TOKEN: "gh-1",
    DB_PASSWORD: "pw",
    NODE_ENV: "production",
  };

  it("keeps only the allowlist, and marks the process as started by Atrium", () => {
    expect(toolEnvironment([], server)).toEqual({ PATH: "/usr/bin", HOME: "/home/owner", LANG: "C.UTF-8", ATRIUM: "1" });
  });

  it("adds the names config shell.env lists, but never ATRIUM_*", () => {
    expect(toolEnvironment(["GITHUB_TOKEN", "ATRIUM_TOKEN", "MISSING"], server)).toEqual({ PATH: "/usr/bin", HOME: "/home/owner", LANG: "C.UTF-8", GITHUB_TOKEN: "gh-1", ATRIUM: "1" });
  });
});

describe("pathInside", () => {
  it("keeps plain names inside their directory and refuses anything that would leave it", () => {
    expect(pathInside("/data/c/artifacts", "01JAAAAAAAAAAAAAAAAAAAAAAA")).toBe("/data/c/artifacts/01JAAAAAAAAAAAAAAAAAAAAAAA");
    for (const name of ["../x", "../../other/attachments/a", "a/b", "..", ".", ".hidden", "a\\b", ""]) {
      expect(() => pathInside("/data/c/attachments", name), name).toThrow(expect.objectContaining({ code: "bad_request" }));
    }
  });
});
