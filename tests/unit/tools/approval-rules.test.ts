import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ApprovalRules, commandMatchesPrefix } from "../../../lib/tools/approval-rules";

describe("a command prefix", () => {
  it("allows the command and its arguments, never a longer word or a chained command", () => {
    expect(commandMatchesPrefix("npm test", "npm test")).toBe(true);
    expect(commandMatchesPrefix("npm test -- --watch", "npm test")).toBe(true);
    expect(commandMatchesPrefix("npm testx", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm test; rm -rf ~", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm test && curl x", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm test $(curl x)", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm test `id`", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm test > /etc/passwd", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm test\nrm -rf ~", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm run build", "npm test")).toBe(false);
  });
});

describe("the rules file", () => {
  const home = () => fs.mkdtempSync(path.join(os.tmpdir(), "atrium-rules-"));

  it("matches per project and tool, keeps a repeated rule once, and removes by id", () => {
    const rules = new ApprovalRules(home());
    const rule = rules.add({ machine: "local", path: "/srv/app", tool: "shell", commandPrefix: "npm test" });
    expect(rules.add({ machine: "local", path: "/srv/app/", tool: "shell", commandPrefix: " npm test " }).id).toBe(rule.id);
    expect(rules.match({ machine: "local", path: "/srv/app", toolName: "shell", input: { command: "npm test -- a" } })?.id).toBe(rule.id);
    expect(rules.match({ machine: "local", path: "/srv/other", toolName: "shell", input: { command: "npm test" } })).toBeNull();
    expect(rules.match({ machine: "local", path: "/srv/app", toolName: "write_file", input: { path: "a" } })).toBeNull();
    const whole = rules.add({ machine: "local", path: "/srv/app", tool: "write_file", commandPrefix: null });
    expect(rules.match({ machine: "local", path: "/srv/app", toolName: "write_file", input: { path: "a" } })?.id).toBe(whole.id);
    expect(rules.remove(rule.id)).toBe(true);
    expect(rules.remove(rule.id)).toBe(false);
    expect(rules.list().map((entry) => entry.id)).toEqual([whole.id]);
  });

  it("is written 0600 and a file that does not parse allows nothing", () => {
    const dir = home();
    const rules = new ApprovalRules(dir);
    rules.add({ machine: "local", path: "/srv/app", tool: "shell", commandPrefix: null });
    expect(fs.statSync(path.join(dir, "approval-rules.json")).mode & 0o777).toBe(0o600);
    fs.writeFileSync(path.join(dir, "approval-rules.json"), "{not json");
    expect(rules.match({ machine: "local", path: "/srv/app", toolName: "shell", input: { command: "ls" } })).toBeNull();
  });
});
