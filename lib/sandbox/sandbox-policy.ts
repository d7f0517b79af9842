import path from "node:path";
import { z } from "zod";

export const sandboxModeSchema = z.enum(["workspace-write", "read-only", "off"]);
export type SandboxMode = z.infer<typeof sandboxModeSchema>;

/** How a tool process actually ran: the backend that confined it, or why nothing did. */
export type SandboxBackend = "bwrap" | "sandbox-exec" | "off" | "unavailable";

/** What a tool process may touch (DESIGN §5): config `sandbox`, the data directory and the call's cwd. */
export interface SandboxPolicy {
  mode: SandboxMode;
  network: boolean;
  /** Absolute paths writable beside the cwd (workspace-write only). */
  writable: readonly string[];
  /** `$ATRIUM_HOME`: never visible to a tool, whatever the mode. */
  home: string;
}

/** A policy and the backend found on this machine, as tools receive them. */
export interface ToolSandbox {
  policy: SandboxPolicy;
  /** The platform's sandbox program, or null when none was found. */
  available: "bwrap" | "sandbox-exec" | null;
}

/** The backend a call under this sandbox runs with. */
export function sandboxBackend(sandbox: ToolSandbox): SandboxBackend {
  if (sandbox.policy.mode === "off") return "off";
  return sandbox.available ?? "unavailable";
}

export class SandboxError extends Error {
  readonly code = "sandbox_refused";
}

/** `$ATRIUM_HOME/skills`: readable by tools (a skill's files are meant for the agent), never writable. */
export function homeSkills(home: string): string {
  return path.join(home, "skills");
}
