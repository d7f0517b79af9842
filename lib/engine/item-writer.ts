import type { EngineOwner } from "./engine-owner";
import type { Item } from "../events/entities";
import type { StoredItem } from "../store/records";
import type { ItemCompletion, ItemFields, SessionState } from "../ports/owner-port";
import { addItem } from "../ports/session-state";

/**
 * Creates and completes a conversation's items for its owner: each record is flushed first,
 * then the item changes in memory, then clients are told.
 */
export class ItemWriter {
  /** Items whose item.completed is on its way to disk: no progress checkpoint may follow it. */
  private readonly completing = new WeakSet<Item>();

  constructor(private readonly owner: Pick<EngineOwner, "context" | "id" | "publish" | "records">) {}

  /**
   * `flushed`: the item joins its session as soon as its record is on disk, before the record is
   * indexed, and `flushed` is told then (a new turn's input: its model request need not wait for
   * the index). Only for an item of a turn not yet on record, which no snapshot shows (liveItems):
   * its item.created event still follows the index update.
   */
  async create(session: SessionState, fields: ItemFields, flushed?: (item: Item) => void): Promise<Item> {
    const store = this.owner.context.store;
    const stored: StoredItem = {
      ...fields,
      id: fields.id ?? store.newId(),
      sessionId: session.id,
      createdAt: store.now().toISOString(),
    };
    const joined: { item?: Item } = {};
    const join = (record: { seq: number }) => {
      const item: Item = { ...stored, seq: record.seq };
      joined.item = item;
      addItem(session, item);
      flushed?.(item);
    };
    const record = await this.owner.records.appendSession(session.id, { type: "item.created", item: stored }, flushed && join);
    if (!joined.item) join(record);
    const item = joined.item!;
    this.owner.publish({ type: "item.created", sessionId: session.id, turnId: item.turnId ?? undefined, item: { ...item } });
    return item;
  }

  async complete(session: SessionState, item: Item, fields: ItemCompletion): Promise<void> {
    this.completing.add(item);
    try {
      await this.owner.records.appendSession(session.id, { type: "item.completed", itemId: item.id, ...fields });
    } finally {
      this.completing.delete(item);
    }
    Object.assign(item, fields);
    this.owner.publish({ type: "item.completed", sessionId: session.id, turnId: item.turnId ?? undefined, item: { ...item } });
  }

  /** Whether a progress checkpoint of this item may still be written (it streams and is not being completed). */
  mayCheckpoint(item: Item): boolean {
    return item.status === "streaming" && !this.completing.has(item);
  }
}
