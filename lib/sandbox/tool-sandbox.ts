import { detectSandbox } from "./detect-sandbox";
import type { SandboxMode, ToolSandbox } from "./sandbox-policy";

export interface SandboxSettings {
  mode: SandboxMode;
  network: boolean;
  writable: readonly string[];
}

/** Config `sandbox` plus the data directory and the platform's sandbox program, as tools receive it. */
export function toolSandbox(settings: SandboxSettings, home: string, available = detectSandbox()): ToolSandbox {
  return { policy: { mode: settings.mode, network: settings.network, writable: settings.writable, home }, available };
}

/** An MCP stdio server's sandbox: the config's, widened by the server's own `sandbox` entry. */
export function serverSandbox(base: ToolSandbox, widening: "off" | { network?: boolean; writable?: readonly string[] } | undefined): ToolSandbox {
  if (widening === undefined) return base;
  if (widening === "off") return { ...base, policy: { ...base.policy, mode: "off" } };
  return {
    ...base,
    policy: {
      ...base.policy,
      network: base.policy.network || widening.network === true,
      writable: [...base.policy.writable, ...(widening.writable ?? [])],
    },
  };
}
