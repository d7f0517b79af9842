import { describe, expect, it } from "vitest";
import { askWithoutSandbox, resolveApprovalPolicy } from "@/lib/tools/approval-policy";

describe("resolveApprovalPolicy", () => {
  it("asks for shell and file writes by default and allows everything else", () => {
    expect(resolveApprovalPolicy("shell")).toBe("ask");
    expect(resolveApprovalPolicy("write_file")).toBe("ask");
    expect(resolveApprovalPolicy("edit_file")).toBe("ask");
    expect(resolveApprovalPolicy("read_file")).toBe("auto");
    expect(resolveApprovalPolicy("spawn_agent")).toBe("auto");
  });

  it("lets the config override the default", () => {
    expect(resolveApprovalPolicy("shell", undefined, { shell: "auto" })).toBe("auto");
    expect(resolveApprovalPolicy("read_file", undefined, { read_file: "deny" })).toBe("deny");
  });

  it("lets the agent's entry win over the config", () => {
    expect(resolveApprovalPolicy("shell", { shell: "deny" }, { shell: "auto" })).toBe("deny");
    expect(resolveApprovalPolicy("shell", { write_file: "auto" }, { shell: "auto" })).toBe("auto");
  });

  it("ignores names inherited from Object.prototype", () => {
    expect(resolveApprovalPolicy("constructor", {}, {})).toBe("auto");
  });
});

describe("askWithoutSandbox", () => {
  it("makes an auto shell call ask where the sandbox is wanted and missing, and nothing else", () => {
    expect(askWithoutSandbox("shell", "unavailable", "auto")).toBe("ask");
    expect(askWithoutSandbox("shell", "unavailable", "deny")).toBe("deny");
    expect(askWithoutSandbox("shell", "bwrap", "auto")).toBe("auto");
    expect(askWithoutSandbox("shell", "off", "auto")).toBe("auto");
    expect(askWithoutSandbox("read_file", "unavailable", "auto")).toBe("auto");
  });
});
