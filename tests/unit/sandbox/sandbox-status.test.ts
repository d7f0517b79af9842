import { describe, expect, it } from "vitest";
import { sandboxStatus, sandboxWarning } from "@/lib/sandbox/sandbox-status";

const settings = { mode: "workspace-write" as const, network: false, writable: [] };

describe("sandbox status", () => {
  it("is active only with a mode other than off and a program found", () => {
    expect(sandboxStatus(settings, "bwrap")).toMatchObject({ active: true, backend: "bwrap" });
    expect(sandboxStatus(settings, null)).toMatchObject({ active: false, backend: null });
    expect(sandboxStatus({ ...settings, mode: "off" }, "bwrap")).toMatchObject({ active: false });
  });

  it("warns once at start only when the sandbox is wanted and missing, saying what to install", () => {
    expect(sandboxWarning(sandboxStatus(settings, "bwrap"), "linux")).toBeNull();
    expect(sandboxWarning(sandboxStatus({ ...settings, mode: "off" }, null), "linux")).toBeNull();
    expect(sandboxWarning(sandboxStatus(settings, null), "linux")).toMatch(/bubblewrap.*asks for approval/);
    expect(sandboxWarning(sandboxStatus(settings, null), "darwin")).toContain("sandbox-exec");
  });
});
