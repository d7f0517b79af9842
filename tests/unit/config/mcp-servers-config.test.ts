import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "@/lib/config/config";
import { resolveApprovalPolicy } from "@/lib/tools/approval-policy";
import { httpHeaders, stdioEnvironment } from "@/lib/tools/mcp-environment";
import { isStdioServer } from "@/lib/config/mcp-servers-schema";
import { toolAllowed } from "@/lib/tools/tool-allowed";

describe("mcpServers in config.json", () => {
  it("takes the Claude Code shape for stdio and Streamable HTTP servers", () => {
    const config = parseConfig({
      mcpServers: {
        files: { command: "node", args: ["server.js", "/srv/notes"], env: { LOG_LEVEL: "info" }, envFrom: { API_TOKEN: "NOTES_TOKEN" } },
        tracker: { url: "http://127.0.0.1:8811/mcp", headersEnv: { Authorization: "TRACKER_AUTH" }, approval: "auto", tools: { delete_issue: "deny" } },
      },
    });
    expect(config.mcpServers.files).toMatchObject({ command: "node", args: ["server.js", "/srv/notes"], callTimeoutSeconds: 600 });
    expect(config.mcpServers.tracker).toMatchObject({ url: "http://127.0.0.1:8811/mcp", headers: {} });
    expect(config.approvals).toMatchObject({ "mcp__tracker__*": "auto", mcp__tracker__delete_issue: "deny" });
  });

  it("names the offending field of a bad server entry", () => {
    expect(() => parseConfig({ mcpServers: { files: { command: "node", argz: [] } } })).toThrow(ConfigError);
    expect(() => parseConfig({ mcpServers: { "a__b": { command: "node" } } })).toThrow(/mcpServers/);
    expect(() => parseConfig({ mcpServers: { web: { url: "not a url" } } })).toThrow(/mcpServers\.web/);
  });

  it("never hands ATRIUM_* (the access token) to a server: envFrom, headersEnv and ${…} in env or headers are refused, naming the field", () => {
    expect(() => parseConfig({ mcpServers: { files: { command: "node", envFrom: { T: "ATRIUM_TOKEN" } } } })).toThrow(/mcpServers\.files\.envFrom/);
    expect(() => parseConfig({ mcpServers: { files: { command: "node", env: { T: "${ATRIUM_TOKEN}" } } } })).toThrow(/mcpServers\.files\.env/);
    expect(() => parseConfig({ mcpServers: { web: { url: "http://127.0.0.1:1/mcp", headersEnv: { Authorization: "ATRIUM_TOKEN" } } } })).toThrow(/mcpServers\.web\.headersEnv/);
    expect(() => parseConfig({ mcpServers: { web: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${ATRIUM_TOKEN}" } } } })).toThrow(/mcpServers\.web\.headers/);
  });

  it("reads secrets from the environment by name and refuses a missing one", () => {
    const config = parseConfig({
      mcpServers: {
        files: { command: "node", env: { MODE: "x" }, envFrom: { API_TOKEN: "NOTES_TOKEN" } },
        web: { url: "http://127.0.0.1:1/mcp", headers: { "X-Team": "a" }, headersEnv: { Authorization: "WEB_AUTH" } },
      },
    });
    const files = config.mcpServers.files;
    const web = config.mcpServers.web;
    if (!isStdioServer(files) || isStdioServer(web)) throw new Error("wrong kinds");
    const env = stdioEnvironment(files, { PATH: "/bin", NOTES_TOKEN: "t0k", OPENAI_API_KEY: "leak", ATRIUM_TOKEN: "leak" });
    expect(env).toEqual({ PATH: "/bin", MODE: "x", API_TOKEN: "t0k" });
    expect(httpHeaders(web, { WEB_AUTH: "Bearer abc" })).toEqual({ "X-Team": "a", Authorization: "Bearer abc" });
    expect(() => httpHeaders(web, {})).toThrow("the environment variable WEB_AUTH is not set");
    const expanded = parseConfig({
      mcpServers: {
        gh: { command: "node", env: { GITHUB_TOKEN: "${GH_PAT}" } },
        api: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${API_KEY}" } },
      },
    }).mcpServers;
    const gh = expanded.gh;
    const api = expanded.api;
    if (!isStdioServer(gh) || isStdioServer(api)) throw new Error("wrong kinds");
    expect(stdioEnvironment(gh, { GH_PAT: "ghp" })).toEqual({ GITHUB_TOKEN: "ghp" });
    expect(httpHeaders(api, { API_KEY: "k" })).toEqual({ Authorization: "Bearer k" });
    expect(() => stdioEnvironment(gh, {})).toThrow("env.GITHUB_TOKEN: the environment variable GH_PAT is not set");
  });
});

describe("approval policy for MCP tools", () => {
  it("asks by default; server and tool entries, then the agent's, decide", () => {
    expect(resolveApprovalPolicy("mcp__files__read")).toBe("ask");
    expect(resolveApprovalPolicy("read_file")).toBe("auto");
    const config = { "mcp__files__*": "auto", mcp__files__write: "deny" } as const;
    expect(resolveApprovalPolicy("mcp__files__read", undefined, config)).toBe("auto");
    expect(resolveApprovalPolicy("mcp__files__write", undefined, config)).toBe("deny");
    expect(resolveApprovalPolicy("mcp__files__write", { "mcp__files__*": "ask" }, config)).toBe("ask");
    expect(resolveApprovalPolicy("mcp__other__x", undefined, config)).toBe("ask");
  });
});

describe("an agent's tools: list and MCP tools", () => {
  it("allows a whole server with mcp__<server>__*, and load_tools with any MCP entry", () => {
    expect(toolAllowed(null, "mcp__files__read")).toBe(true);
    expect(toolAllowed(["read_file"], "mcp__files__read")).toBe(false);
    expect(toolAllowed(["mcp__files__*"], "mcp__files__read")).toBe(true);
    expect(toolAllowed(["mcp__files__*"], "mcp__other__read")).toBe(false);
    expect(toolAllowed(["mcp__files__read"], "load_tools")).toBe(true);
    expect(toolAllowed(["read_file"], "load_tools")).toBe(false);
  });
});
