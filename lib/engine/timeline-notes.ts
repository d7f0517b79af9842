import type { TimelineEntry } from "../events/entities";

/** Bounded: only recent turns keep their retry notes. */
const NOTED_TURNS = 2000;

/** Timeline entries only this process saw (model-call retries), by turn, merged into GET /api/turns/:id. */
export class TimelineNotes {
  private readonly notes = new Map<string, TimelineEntry[]>();

  note(turnId: string, entry: TimelineEntry): void {
    const entries = this.notes.get(turnId) ?? [];
    entries.push(entry);
    this.notes.set(turnId, entries);
    if (this.notes.size > NOTED_TURNS) this.notes.delete(this.notes.keys().next().value!);
  }

  of(turnId: string): TimelineEntry[] {
    return this.notes.get(turnId) ?? [];
  }
}
