"use client";

import { MonitorOffIcon } from "lucide-react";
import { useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { MachinePicker } from "./machine-picker";
import { useMachines } from "./use-machines";

/** DESIGN §10b: the conversation's machine is offline; "Pick another machine" moves it (PATCH {machine, cwd}). */
export function MachineOfflineBanner({ conversation, onPatch }: { conversation: Conversation; onPatch: (patch: { machine: string; cwd?: string }) => Promise<boolean> }) {
  const { machines, loaded } = useMachines();
  const [picking, setPicking] = useState(false);
  const [target, setTarget] = useState<string | null>(null);
  const [cwd, setCwd] = useState("");
  const current = machines.find((machine) => machine.id === conversation.machine);
  const offline = loaded ? current?.status !== "online" : conversation.missing.includes("machine");
  if (!offline) return null;
  const online = machines.filter((machine) => machine.status === "online");
  const chosen = target ?? online[0]?.id ?? null;
  const chosenMachine = online.find((machine) => machine.id === chosen);
  return (
    <div role="alert" aria-label="Machine offline" className="border-b border-warning/40 bg-warning/10 px-4 py-3 text-sm">
      <div className="mx-auto grid max-w-3xl gap-3">
        <p className="flex items-start gap-2 font-medium">
          <MonitorOffIcon className="mt-0.5 size-4 shrink-0" aria-hidden />
          {/* One inline run of text: as flex items, the words and the command would sit in columns on a phone. */}
          <span className="min-w-0">
            The machine {current?.name ?? "of this conversation"} is offline. Start <code className="break-all">atrium machine connect</code> there, or move
            this conversation.
          </span>
        </p>
        {!picking && (
          <div>
            <Button type="button" size="sm" variant="outline" disabled={online.length === 0} onClick={() => setPicking(true)}>
              Pick another machine
            </Button>
          </div>
        )}
        {picking && chosen && (
          <form
            className="flex flex-col items-start gap-2 sm:flex-row sm:flex-wrap sm:items-end"
            onSubmit={(event) => {
              event.preventDefault();
              void onPatch({ machine: chosen, ...(cwd.trim() ? { cwd: cwd.trim() } : {}) }).then((moved) => moved && setPicking(false));
            }}
          >
            <MachinePicker machines={online} value={chosen} onChange={setTarget} />
            <div className="grid w-full gap-1 sm:w-auto sm:flex-1">
              <Label htmlFor="move-cwd">Folder on {chosenMachine?.name}</Label>
              <Input id="move-cwd" value={cwd} onChange={(event) => setCwd(event.target.value)} placeholder={chosenMachine?.builtin ? "default folder" : (chosenMachine?.roots[0] ?? "")} className="h-8 bg-background" />
            </div>
            <div className="flex gap-2">
              <Button type="submit" size="sm">
                Move here
              </Button>
              <Button type="button" size="sm" variant="ghost" onClick={() => setPicking(false)}>
                Cancel
              </Button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}
