import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { MachineRoots } from "../machines/machine-paths";
import { connectMachine } from "../machines/machine-connect";
import { machineNameSchema } from "../machines/machine-schema";
import { sharedMcpEnvironment } from "./mcp-shared-environment";
import { sandboxModeSchema } from "../sandbox/sandbox-policy";
import { toolSandbox } from "../sandbox/tool-sandbox";
import { SnapshotStore } from "../checkpoints/snapshot-store";

/** The gateway's default `snapshots.maxFiles`: a machine has no config file of its own. */
const SNAPSHOT_MAX_FILES = 20_000;
import { findChatServer } from "./chat-server";
import { onePositional, UsageError, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";

/** `atrium machine connect <gateway URL>` and `atrium machine add <name>` (DESIGN §10b, §11). */
export async function runMachine(args: string[], context: CliContext): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === "connect") return runConnect(rest, context);
  if (verb === "add") return runAdd(rest, context);
  throw new UsageError(verb === undefined ? "missing machine <connect|add>" : `unknown machine command "${verb}"`);
}

async function runConnect(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { name: { type: "string" }, root: { type: "string", multiple: true }, sandbox: { type: "string" }, "mcp-env": { type: "string", multiple: true } },
    allowPositionals: true,
    strict: true,
  });
  const url = gatewayUrl(onePositional(positionals, "gateway URL"));
  // Never from argv: a command line is visible to every user of the machine (ps).
  const token = context.env.ATRIUM_MACHINE_TOKEN;
  if (!token) throw new UsageError("set ATRIUM_MACHINE_TOKEN to the machine token the gateway showed when the machine was added");
  const name = values.name === undefined ? null : parsed(machineNameSchema, values.name, "--name");
  const mode = parsed(sandboxModeSchema, values.sandbox ?? "workspace-write", "--sandbox");
  const roots = (values.root ?? [context.cwd]).map((root) => path.resolve(context.cwd, root));
  for (const root of roots) {
    if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--root ${root} is not a directory`);
  }
  const mcpEnv = sharedMcpEnvironment(context.env, values["mcp-env"] ?? []);
  // This machine's own data directory stays out of the tools' reach, as the gateway's does there.
  const sandbox = toolSandbox({ mode, network: false, writable: [] }, context.home);
  const print = (line: string) => context.print(`[${new Date().toISOString()}] ${line}`);
  print(`linking to ${url} (roots: ${roots.join(", ")}; sandbox: ${mode}, ${sandbox.available ?? "no sandbox program found"})`);
  // Checkpoints of this machine's folders stay here, in its own data directory, like the gateway's snapshots/.
  const snapshots = new SnapshotStore(path.join(context.home, "snapshots"), SNAPSHOT_MAX_FILES);
  return connectMachine({ url, token, name, roots: new MachineRoots(roots), sandbox, env: context.env, mcpEnv, snapshots, print });
}

async function runAdd(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { root: { type: "string", multiple: true }, url: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const name = parsed(machineNameSchema, onePositional(positionals, "name"), "<name>");
  const server = findChatServer(context, values.url);
  const response = await fetch(`${server.url}/api/machines`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify({ name, ...(values.root ? { roots: values.root.map((root) => path.resolve(context.cwd, root)) } : {}) }),
  });
  const body = (await response.json()) as { machine?: { id: string; name: string }; token?: string; error?: { message: string } };
  if (!response.ok || !body.token || !body.machine) throw new Error(body.error?.message ?? `the server answered ${response.status}`);
  context.print(`Added machine ${body.machine.name} (${body.machine.id}). On that computer, run:`);
  context.print(`  ATRIUM_MACHINE_TOKEN=${body.token} atrium machine connect ${server.url} --root <dir>`);
  context.print("The token is shown only this once.");
  return EXIT_DONE;
}

function gatewayUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`"${value}" is not a URL (e.g. https://atrium.example.net)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`the gateway URL must be http:// or https://, not ${url.protocol}`);
  return url.origin;
}

function parsed<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ message: string }> } } }, value: string, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`${what} "${value}": ${result.error.issues[0]?.message ?? "not valid"}`);
  return result.data;
}
