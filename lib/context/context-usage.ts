import type { ModelMessage } from "ai";
import { contextItems } from "./compaction";
import { memoryFolder, readMemories, selectMemories } from "./memories";
import { compactionThreshold } from "./threshold";
import { countMessages, countRepeated, tokenCounterFor, type TokenCounter } from "./tokens";
import type { AgentDefinition } from "../agents/definitions";
import type { ContextInfo } from "../events/entities";
import type { AnyToolDefinition } from "../tools/tool";
import { toolAllowed } from "../tools/tool-allowed";
import { z } from "zod";
import type { ConversationOwner } from "../ports/owner-port";
import { linkedProject, type ProjectPlace } from "../ports/machine-port";
import { spawnAgentFor } from "../tools/engine-tools";
import { attachmentPartsFor } from "./attachment-parts";
import { itemsToMessages } from "./history";
import type { SessionState } from "../ports/session-state";
import { buildSystemPrompt } from "./system-prompt";

export interface RequestShape {
  system: string;
  messages: ModelMessage[];
  tools: readonly AnyToolDefinition[];
}

export interface Usage {
  usedTokens: number;
  source: "reported" | "estimate";
  /** What estimates were scaled by (SessionState.calibration); null: never calibrated, taken as 1. */
  calibration: number | null;
  contextWindow: number;
  maxOutputTokens: number;
  threshold: number;
  counter: TokenCounter;
}

/** The agent's tools, as the model is offered them. */
export function toolsFor(actor: ConversationOwner, session: SessionState): readonly AnyToolDefinition[] {
  const place = actor.conversation();
  return agentTools(actor, actor.context.agent(session.agent, place), place);
}

function agentTools(actor: ConversationOwner, agent: AgentDefinition | undefined, place: ProjectPlace): readonly AnyToolDefinition[] {
  const context = actor.context;
  return [...context.tools, ...context.engineTools]
    // Issue 14 hook: `mcp__<server>__*` entries in an agent's tools: list.
    .filter((tool) => toolAllowed(agent?.tools, tool.name))
    // An MCP server configured on a machine serves only conversations on that machine (DESIGN §10b).
    .filter((tool) => context.extensions?.mcp.offeredOn(tool.name, place.machine ?? "local") !== false)
    .map((tool) => (tool.name === "spawn_agent" ? spawnAgentFor(context.agents(place)) : tool));
}

/** The parts of a request that do not depend on the history, as `requestFrame` builds them. */
export type RequestFrame = ReturnType<typeof requestFrame>;

/** The request the session's next model call would send, before the new input is read; `frame`: one already built for the session as it is. */
export function nextRequest(actor: ConversationOwner, session: SessionState, reasoningMode?: "all_turns" | "current_turn", frame?: RequestFrame): RequestShape & Pick<RequestFrame, "catalogTokens"> {
  const model = actor.context.models.get(modelIdOf(actor, session));
  const mode = reasoningMode ?? model?.reasoningContext;
  return {
    ...(frame ?? requestFrame(actor, session)),
    messages: itemsToMessages(contextItems(session.items, session.compaction), {
      attachmentParts: attachmentPartsFor(actor.context.store.files, actor.id, model),
      reasoning: mode ? { mode, currentTurnId: session.runner?.turn.id ?? null } : undefined,
    }),
  };
}

/** The parts of the next request that do not depend on the history: what `fixedTokens` counts, without converting the history. */
export function requestFrame(actor: ConversationOwner, session: SessionState): Pick<RequestShape, "system" | "tools"> & { catalogTokens?: { skills: number; tools: number } } {
  // Read once per frame: each read of the conversation is a copy, each agent lookup a look at its folder.
  const { cwd, machine } = actor.conversation();
  const place = { cwd, machine };
  const agent = actor.context.agent(session.agent, place);
  // On a linked machine the project's files are the machine's, as it last reported them.
  const remote = linkedProject(actor.context.machines, place) ?? undefined;
  const base = {
    system: buildSystemPrompt({
      agent,
      cwd,
      agentsFile: remote?.agentsFile,
      memories: selectMemories(
        readMemories(memoryFolder(actor.context.store.paths.home, session.agent)),
        lastUserText(session),
        actor.context.config.memoryBudgetTokens,
      ),
      objective: session.id === actor.rootSessionId ? actor.objective() : null,
    }),
    tools: agentTools(actor, agent, place),
  };
  // Issue 14 hook: the skill catalog, skills loaded before a compaction, MCP tools or their catalog.
  const extensions = actor.context.extensions;
  if (!extensions) return base;
  const model = actor.context.models.get(modelIdOf(actor, session));
  return extensions.frame(base, {
    allowedSkills: agent?.skills ?? null,
    place,
    items: session.items,
    kept: contextItems(session.items, session.compaction),
    input: lastUserText(session),
    counter: tokenCounterFor(model?.provider),
  });
}

function modelIdOf(actor: ConversationOwner, session: SessionState): string {
  return session.runner?.turn.model ?? (session.id === actor.rootSessionId ? actor.conversation().model : session.model);
}

function lastUserText(session: SessionState): string {
  for (let index = session.items.length - 1; index >= 0; index -= 1) {
    const item = session.items[index];
    if (item.kind === "user_message") return item.text ?? "";
  }
  return "";
}

/** Each tool schema as counted, converted once: the zod schemas never change, and converting them was a tenth of a model call. */
const countedSchemas = new WeakMap<AnyToolDefinition["inputSchema"], string>();

function countedSchema(tool: AnyToolDefinition): string {
  // Issue 14 hook: an MCP tool is counted by its server's JSON Schema, the one that is sent.
  if (tool.inputJsonSchema) return JSON.stringify(tool.inputJsonSchema);
  const schema = tool.inputSchema;
  let text = countedSchemas.get(schema);
  if (text === undefined) {
    text = JSON.stringify(z.toJSONSchema(schema));
    countedSchemas.set(schema, text);
  }
  return text;
}

export function fixedTokens(request: Pick<RequestShape, "system" | "tools">, counter: TokenCounter): number {
  const catalog = request.tools.map((tool) => `${tool.name}: ${tool.description} ${countedSchema(tool)}`);
  return countRepeated(request.system, counter) + countRepeated(catalog.join("\n"), counter);
}

/** The whole request as Atrium estimates it: the figure a report is compared with to calibrate. */
export function estimateRequest(request: RequestShape, counter: TokenCounter): number {
  return fixedTokens(request, counter) + countMessages(request.messages, counter);
}

/**
 * DESIGN §4: the provider's input count for the last request plus an estimate of what
 * was added since; without a report, a full estimate. Every estimate is scaled by the
 * session's calibration (reported ÷ estimated at the last report), so the figure keeps one
 * basis: the same content shows the same usage with or without a fresh report.
 */
export function measureUsage(actor: ConversationOwner, session: SessionState, modelId: string, built?: RequestShape): Usage {
  const model = actor.context.models.get(modelId);
  const contextWindow = model?.contextWindow ?? 32000;
  const maxOutputTokens = model?.maxOutputTokens ?? 4000;
  const counter = tokenCounterFor(model?.provider);
  const calibration = session.calibration;
  const scale = (tokens: number) => Math.round(tokens * (calibration ?? 1));
  const base = { contextWindow, maxOutputTokens, threshold: compactionThreshold(contextWindow, maxOutputTokens), counter, calibration };
  if (session.lastReportedInput !== null) {
    const mode = session.reasoningContextApplied ?? model?.reasoningContext;
    const added = itemsToMessages(session.items.slice(session.reportedItemCount), {
      reasoning: mode ? { mode, currentTurnId: session.runner?.turn.id ?? null } : undefined,
    });
    return { ...base, usedTokens: session.lastReportedInput + scale(countMessages(added, counter)), source: "reported" };
  }
  // Counted the way the provider said it applied reasoning context, when it said so; `built` (the
  // request about to be sent, in the configured mode) is that request when the two modes agree.
  const applied = session.reasoningContextApplied;
  const request = built && (applied === null || applied === model?.reasoningContext) ? built : nextRequest(actor, session, applied ?? undefined);
  return { ...base, usedTokens: scale(estimateRequest(request, counter)), source: "estimate" };
}

/** `frame`: the session's frame, when the caller has just built it (its catalogs are counted there). */
export function contextInfo(
  actor: ConversationOwner,
  session: SessionState,
  modelId: string,
  totals: ContextInfo["totalTokens"],
  lastCompaction: ContextInfo["lastCompaction"],
  frame?: Pick<RequestFrame, "catalogTokens">,
): ContextInfo {
  const usage = measureUsage(actor, session, modelId);
  const configured = actor.context.models.get(modelId)?.reasoningContext;
  return {
    contextWindow: usage.contextWindow,
    maxOutputTokens: usage.maxOutputTokens,
    threshold: usage.threshold,
    usedTokens: usage.usedTokens,
    source: usage.source,
    calibration: usage.calibration,
    roomTokens: usage.contextWindow - usage.usedTokens,
    totalTokens: totals,
    lastCompaction,
    reasoningContext: configured ? { configured, applied: session.reasoningContextApplied } : null,
    // Issue 14 hook: what the skill and tool catalogs take, for the context ring.
    catalogTokens: (frame ?? requestFrame(actor, session)).catalogTokens ?? { skills: 0, tools: 0 },
  };
}
