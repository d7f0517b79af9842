"use client";

import { AlertCircleIcon, Loader2Icon, RotateCwIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { Agent, Conversation, ModelInfo } from "@/lib/events/entities";
import type { Project } from "@/lib/store/projects";
import { Button } from "@/components/ui/button";
import { Composer } from "@/components/chat/composer";
import { AttachButton, AttachmentChips, useAttachmentTray } from "@/components/attachments/attachments";
import { ImageModelWarning } from "@/components/attachments/image-model-warning";
import { EffortPicker, ModelPicker, type Effort } from "@/components/chat/model-controls";
import { PageHeader } from "@/components/sidebar/page-header";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { clearDraft, newChatDraftKey } from "@/components/shared/drafts";
import { AgentPicker } from "./new-chat-options";
import { ProjectPicker, type CheckFolder } from "./project-picker";
import { MachinePicker } from "@/components/machines/machine-picker";
import { LAST_MACHINE_KEY, useMachineChoice } from "@/components/machines/use-machine-choice";
import type { Machine } from "@/lib/machines/machine-schema";

interface NewChatProps {
  agents: Agent[];
  models: ModelInfo[];
  defaultModel: string;
  defaultCwd: string;
  /** DESIGN §10b: where the machine work runs; absent: the built-in machine only. */
  machines?: Machine[];
  /** Recent projects on every machine, the last used first (GET /api/projects). */
  projects: Project[];
  checkFolder: CheckFolder;
  /** The page header's title: "Atrium" on the home page, "New chat" on /new. */
  title?: string;
}

interface CreateBody {
  text: string;
  agent: string;
  model: string;
  effort?: Effort | null;
  cwd?: string;
  machine?: string;
  attachments?: string[];
}

/** The new-chat composer, with agent, folder and model folded into it; nothing is saved until the first message is sent (DESIGN §9). */
const LAST_PROJECT_KEY = "atrium:last-project";

/**
 * The folder a new chat starts in: the one last picked in this browser, else the last used
 * anywhere (the page leaves out folders that are gone), else the server's. A remembered folder
 * on this server that is gone since is dropped as the starting point (checked once, on open).
 */
function useProjectChoice(projects: Project[], checkFolder: CheckFolder) {
  const [cwd, setCwd] = useState(projects[0]?.path ?? "");
  useEffect(() => {
    const remembered = window.localStorage.getItem(LAST_PROJECT_KEY);
    if (!remembered) return;
    setCwd(remembered);
    // Only a folder on this server is checked here (and one the page listed is there); a linked machine's is checked there when picked.
    const rememberedMachine = window.localStorage.getItem(LAST_MACHINE_KEY);
    if ((rememberedMachine !== null && rememberedMachine !== "local") || projects.some((project) => project.path === remembered && project.machine === "local")) return;
    let live = true;
    checkFolder(remembered).then(
      (check) => {
        if (live && !check.ok) setCwd((current) => (current === remembered ? (projects[0]?.path ?? "") : current));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
    // Once, on open: the choice is the person's from then on.
  }, []);
  const choose = (next: string) => {
    setCwd(next);
    if (next.trim()) window.localStorage.setItem(LAST_PROJECT_KEY, next.trim());
  };
  return [cwd, choose] as const;
}

/** A typed folder on a linked machine is checked there (its folder listing), never on the server's disk. */
function checkOnMachine(machine: string): CheckFolder {
  return async (folder) => {
    try {
      const listing = await apiFetch<{ path: string }>(`/api/folders?machine=${encodeURIComponent(machine)}&path=${encodeURIComponent(folder.trim())}`);
      return { ok: true, path: listing.path };
    } catch (error) {
      return { ok: false, message: sentence(errorMessage(error)) };
    }
  };
}

/** A server message may lack its full stop ("… does not exist"); the alert reads as sentences. */
const sentence = (message: string) => (/[.!?]$/.test(message.trim()) ? message.trim() : `${message.trim()}.`).replace(/^\w/, (first) => first.toUpperCase());

export function NewChat({ agents, models, defaultModel, defaultCwd, machines: initialMachines, projects, checkFolder, title = "New chat" }: NewChatProps) {
  const router = useRouter();
  const [agent, setAgent] = useState(agents.find((candidate) => candidate.name === "default")?.name ?? agents[0]?.name ?? "default");
  const agentInfo = agents.find((candidate) => candidate.name === agent);
  const [model, setModel] = useState(agentInfo?.model ?? defaultModel);
  const [effort, setEffort] = useState<Effort | null>(null);
  const [cwd, setCwd] = useProjectChoice(projects, checkFolder);
  const { machines, machine, setMachine, machineCwd } = useMachineChoice(initialMachines, defaultCwd);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<{ message: string; body: CreateBody; requestKey: string } | null>(null);
  // One key per distinct request: a Retry of the same body reuses it, so the server creates one conversation.
  const lastAttempt = useRef<{ key: string; body: string } | null>(null);
  const modelInfo = models.find((candidate) => candidate.id === model);
  const attachments = useAttachmentTray();

  const create = async (body: CreateBody, requestKey: string): Promise<boolean> => {
    setSending(true);
    setFailure(null);
    try {
      const created = await apiFetch<{ conversation: Conversation }>("/api/conversations", { method: "POST", body: { ...body, requestKey } });
      clearDraft(newChatDraftKey(body.agent));
      lastAttempt.current = null;
      attachments.clear();
      router.push(`/c/${created.conversation.id}`);
      return true;
    } catch (error) {
      setFailure({ message: errorMessage(error), body, requestKey });
      return false;
    } finally {
      setSending(false);
    }
  };

  const submit = (text: string) => {
    const body: CreateBody = { text, agent, model, ...(modelInfo?.effort ? { effort } : {}), ...(cwd.trim() ? { cwd: cwd.trim() } : {}), ...(machine !== "local" ? { machine } : {}), ...(attachments.ids.length ? { attachments: attachments.ids } : {}) };
    const serialized = JSON.stringify(body);
    if (lastAttempt.current?.body !== serialized) lastAttempt.current = { key: newRequestKey(), body: serialized };
    return create(body, lastAttempt.current.key);
  };

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <PageHeader title={title} />
      <div className="flex min-h-0 flex-1 flex-col overflow-y-auto">
        <div className="mx-auto flex w-full max-w-3xl flex-1 flex-col justify-center gap-5 px-4 py-8 md:px-6">
          <div className="grid gap-1.5">
            <h2 className="text-2xl font-semibold tracking-tight">What should we work on?</h2>
            <p className="text-sm text-muted-foreground">Type and press Enter. Nothing is saved until you send; the turn keeps running on the server when you close the tab.</p>
          </div>
          {failure && <CreateFailure message={failure.message} sending={sending} onRetry={() => void create(failure.body, failure.requestKey)} />}
          <AttachmentChips tray={attachments} />
          <ImageModelWarning tray={attachments} model={modelInfo} models={models} />
          <Composer
            toolbar={
              <>
                <AttachButton tray={attachments} />
                <AgentPicker
                  agents={agents}
                  value={agent}
                  onChange={(next) => {
                    setAgent(next);
                    const chosen = agents.find((candidate) => candidate.name === next);
                    if (chosen?.model) setModel(chosen.model);
                  }}
                />
                {machines.length > 1 && <MachinePicker machines={machines} value={machine} onChange={(next) => (setMachine(next), setCwd(""))} />}
                <ProjectPicker
                  {...{ machine, agent, projects: projects.filter((project) => project.machine === machine) }}
                  machineName={machines.find((candidate) => candidate.id === machine)?.name ?? machine}
                  value={cwd}
                  defaultCwd={machineCwd}
                  checkFolder={machine === "local" ? checkFolder : checkOnMachine(machine)}
                  onChange={(next) => {
                    setCwd(next);
                    // The error was about the folder given then; a new choice makes it stale.
                    setFailure(null);
                  }}
                />
                <ModelPicker models={models} value={model} onChange={setModel} />
                {modelInfo?.effort && <EffortPicker value={effort} onChange={setEffort} />}
              </>
            }
            draftKey={newChatDraftKey(agent)}
            busy={false}
            placeholder="Describe the task…"
            clearOn="success"
            sending={sending}
            onSubmit={(text) => submit(text)}
          />
          {modelInfo?.notice && (
            <p role="note" className="rounded-md border border-dashed px-3 py-2 text-xs text-muted-foreground">
              {modelInfo.notice}
            </p>
          )}
        </div>
      </div>
    </div>
  );
}

function CreateFailure({ message, sending, onRetry }: { message: string; sending: boolean; onRetry: () => void }) {
  return (
    <div role="alert" className="flex items-start gap-2 rounded-xl border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm">
      <AlertCircleIcon className="mt-0.5 size-4 shrink-0 text-destructive" />
      <p className="min-w-0 flex-1">
        <span className="font-medium text-destructive">The conversation was not created.</span> {sentence(message)} Your message is kept below.
      </p>
      <Button size="xs" variant="outline" disabled={sending} onClick={onRetry}>
        {sending ? <Loader2Icon className="animate-spin" /> : <RotateCwIcon />}
        Retry
      </Button>
    </div>
  );
}
