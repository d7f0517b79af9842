import type { AtriumConfig } from "../config/config";
import type { EventBus } from "../events/bus";
import { sandboxStatus } from "../sandbox/sandbox-status";
import type { StoreReader } from "../ports/engine-context";
import { MachineRegistry } from "./machine-registry";
import type { MachineBook } from "./machine-records";

/** The Runtime's machine registry, on its data directory and event bus. */
export function machineRegistryFor(store: StoreReader, bus: EventBus, config: AtriumConfig, log: (message: string) => void, records?: MachineBook): MachineRegistry {
  return new MachineRegistry({
    file: store.paths.machines,
    records,
    localEnabled: config.machines.local,
    localSandbox: localSandboxName(config),
    defaultCwd: config.defaultCwd,
    now: () => store.now(),
    newId: () => store.newId(),
    publish: (machine) => bus.publishList({ type: "machine.updated", machine }),
    log,
  });
}

function localSandboxName(config: AtriumConfig): string {
  const status = sandboxStatus(config.sandbox);
  return describeSandbox(status.mode, status.backend);
}

/** A machine's `sandbox` as the API shows it: "workspace-write (bwrap)", "off", "read-only (unavailable)". */
export function describeSandbox(mode: string, backend: string | null): string {
  return mode === "off" ? "off" : `${mode} (${backend ?? "unavailable"})`;
}
