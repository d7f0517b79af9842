import { detectSandbox } from "./detect-sandbox";
import type { SandboxMode } from "./sandbox-policy";

export interface SandboxStatus {
  mode: SandboxMode;
  network: boolean;
  writable: readonly string[];
  /** The platform's sandbox program found on this machine, or null. */
  backend: "bwrap" | "sandbox-exec" | null;
  /** Whether tool processes run confined: a mode other than off and a program to do it. */
  active: boolean;
}

/** What Settings → Tools and GET /api/tools say of the sandbox. */
export function sandboxStatus(settings: { mode: SandboxMode; network: boolean; writable: readonly string[] }, backend = detectSandbox()): SandboxStatus {
  return { mode: settings.mode, network: settings.network, writable: settings.writable, backend, active: settings.mode !== "off" && backend !== null };
}

/** The one line `serve` prints when the sandbox is wanted and this machine has none (DESIGN §5). */
export function sandboxWarning(status: SandboxStatus, platform: NodeJS.Platform = process.platform): string | null {
  if (status.mode === "off" || status.backend !== null) return null;
  const how = platform === "darwin" ? "/usr/bin/sandbox-exec was not found" : platform === "linux" ? "bwrap was not found (install the bubblewrap package)" : `there is no sandbox for ${platform}`;
  return `Warning: tools run without a sandbox: ${how}. Every shell call asks for approval, whatever the policy.`;
}
