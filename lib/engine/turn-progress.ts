import type { EngineOwner } from "./engine-owner";
import type { Item, Turn } from "../events/entities";
import { CappedOutput } from "../tools/capped-output";
import type { SessionState } from "../ports/owner-port";

/**
 * What a running turn has produced that is not yet final: tool output held in memory, and the
 * item.progress checkpoints written at most every 2 s (DESIGN §2) so a crash loses little.
 */
export class TurnProgress {
  private readonly checkpointed = new Map<string, string>();
  private readonly outputs = new Map<string, CappedOutput>();

  constructor(
    private readonly owner: EngineOwner,
    private readonly session: SessionState,
    private readonly turn: Turn,
  ) {}

  appendOutput(item: Item, delta: string): void {
    if (delta === "") return;
    // Held in memory capped like the stored checkpoint: a chatty command cannot grow the item without bound.
    let output = this.outputs.get(item.id);
    if (!output) {
      output = new CappedOutput(this.owner.context.config.artifactBytes);
      output.append(item.output ?? "");
      this.outputs.set(item.id, output);
    }
    output.append(delta);
    item.output = output.toString();
    this.owner.publish({ type: "item.delta", sessionId: this.session.id, turnId: this.turn.id, itemId: item.id, field: "output", delta });
  }

  /** Writes item.progress for streaming items whose text changed since the last checkpoint. */
  async writeCheckpoint(): Promise<void> {
    for (const item of this.session.items) {
      if (item.turnId !== this.turn.id || !this.owner.mayCheckpoint(item)) continue;
      const text = checkpointText(item, this.owner.context.config.artifactBytes);
      if (this.checkpointed.get(item.id) === text) continue;
      this.checkpointed.set(item.id, text);
      await this.owner.records.appendSession(this.session.id, { type: "item.progress", itemId: item.id, text });
    }
  }

  /** Marks a tool call as started (its first progress record) so a crash leaves it `unknown`, not `interrupted`. */
  async markStarted(item: Item): Promise<void> {
    await this.owner.records.appendSession(this.session.id, { type: "item.progress", itemId: item.id, text: "" });
    this.checkpointed.set(item.id, "");
    item.status = "streaming";
    item.output = "";
    this.owner.publish({ type: "item.updated", sessionId: this.session.id, turnId: this.turn.id, item: { ...item } });
  }
}

/** A tool's progress keeps at most the artifact limit, so a huge output never floods the JSONL. */
function checkpointText(item: Item, limit: number): string {
  if (item.kind !== "tool_call") return item.text ?? "";
  const output = item.output ?? "";
  if (output.length <= limit) return output;
  const half = Math.floor(limit / 2);
  return `${output.slice(0, half)}\n[… ${output.length - limit} characters not checkpointed …]\n${output.slice(-half)}`;
}
