"use client";

import { MonitorIcon, PlusIcon } from "lucide-react";
import { useState } from "react";
import type { Machine } from "@/lib/machines/machine-schema";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { CopyButton } from "@/components/chat/copy-button";
import { MachineDot } from "./machine-dot";
import { RevokeMachineButton } from "./revoke-machine-button";
import { useMachines } from "./use-machines";

function connectCommand(token: string, gatewayUrl: string): string {
  return `ATRIUM_MACHINE_TOKEN=${token} npx atrium machine connect ${gatewayUrl}`;
}

function when(iso: string | null): string {
  if (!iso) return "never";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Settings → Machines (DESIGN §10b): add a machine (its command and token shown once), list them, revoke. */
export function MachinesSettings({ initial, gatewayUrl }: { initial: Machine[]; gatewayUrl: string }) {
  const { machines, reload } = useMachines(initial);
  return (
    <div className="mx-auto grid w-full max-w-2xl gap-4 overflow-y-auto p-4 md:p-6">
      <AddMachine gatewayUrl={gatewayUrl} onAdded={reload} />
      <section aria-labelledby="machines-list" className="grid gap-3 rounded-lg border p-4">
        <h2 id="machines-list" className="flex items-center gap-2 text-sm font-semibold">
          <MonitorIcon className="size-4" />
          Machines
        </h2>
        <ul className="grid gap-3" aria-label="Machines">
          {machines.map((machine) => (
            <MachineRow key={machine.id} machine={machine} onRevoked={reload} />
          ))}
        </ul>
      </section>
    </div>
  );
}

function MachineRow({ machine, onRevoked }: { machine: Machine; onRevoked: () => void }) {
  const online = machine.status === "online";
  return (
    <li className="grid gap-1 text-sm" aria-label={`Machine ${machine.name}`} data-machine-id={machine.id}>
      <span className="flex items-center gap-2">
        <MachineDot online={online} />
        <span className="font-medium">{machine.name}</span>
        <span className="text-xs text-muted-foreground">{online ? "online" : "offline"}</span>
        {machine.builtin && <span className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground">this server</span>}
        {!machine.builtin && <RevokeMachineButton machine={machine} onRevoked={onRevoked} />}
      </span>
      <span className="text-xs text-muted-foreground">
        {machine.hostname ?? "not connected yet"}
        {machine.platform ? ` · ${machine.platform}` : ""} · sandbox {machine.sandbox} · last seen {when(machine.lastSeenAt)}
      </span>
      {machine.roots.length > 0 && (
        // One root a line: a path wraps only when it is longer than the row.
        <div className="flex gap-1.5 text-xs text-muted-foreground">
          <span aria-hidden>roots:</span>
          <ul aria-label={`Roots of ${machine.name}`} className="grid min-w-0 font-mono">
            {machine.roots.map((root) => (
              <li key={root} className="break-all">
                {root}
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

function AddMachine({ gatewayUrl, onAdded }: { gatewayUrl: string; onAdded: () => void }) {
  const [name, setName] = useState("");
  const [added, setAdded] = useState<{ name: string; token: string; url: string } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const add = async () => {
    setFailure(null);
    try {
      const body = await apiFetch<{ machine: Machine; token: string }>("/api/machines", { method: "POST", body: { name: name.trim() } });
      // The address this browser reached the server at: behind a proxy it is the public one, where the Host header may not be.
      setAdded({ name: body.machine.name, token: body.token, url: window.location.origin || gatewayUrl });
      setName("");
      onAdded();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };
  return (
    <section aria-labelledby="add-machine" className="grid gap-3 rounded-lg border p-4">
      <h2 id="add-machine" className="text-sm font-semibold">
        Add a machine
      </h2>
      <p className="text-xs text-muted-foreground">A machine is another computer where conversations run their shell and file tools. It dials out to this server, so it works from behind NAT.</p>
      <form
        className="flex items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <div className="grid flex-1 gap-1">
          <Label htmlFor="machine-name">Machine name</Label>
          <Input id="machine-name" value={name} onChange={(event) => setName(event.target.value)} placeholder="laptop" />
        </div>
        <Button type="submit" size="sm" disabled={name.trim() === ""}>
          <PlusIcon />
          Add machine
        </Button>
      </form>
      {failure && <p className="text-xs text-destructive">{failure}</p>}
      {added && (
        <div role="status" aria-label="Connect command" className="grid gap-1 rounded-md bg-muted p-3 text-xs">
          <p>
            Run this on <strong>{added.name}</strong>, in the folder it should work in (add <code>--root DIR</code> for others). The token is shown only now.
          </p>
          <div className="flex items-start gap-1">
            <code className="flex-1 font-mono break-all select-all" data-testid="machine-connect-command">
              {connectCommand(added.token, added.url)}
            </code>
            <CopyButton getText={() => connectCommand(added.token, added.url)} label="Copy the connect command" className="-my-1" />
          </div>
        </div>
      )}
    </section>
  );
}
