import { AtriumError } from "../errors";

/** DESIGN §10 Limits: one conversation's Waiting list holds at most this many messages… */
export const MAX_WAITING_MESSAGES = 100;
/** …and at most this much text (UTF-8 bytes of every waiting text together). */
export const MAX_WAITING_TEXT_BYTES = 10 * 1024 * 1024;

export interface WaitingLoad {
  count: number;
  textBytes: number;
}

export function textBytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

export function waitingLoad(texts: Iterable<string>): WaitingLoad {
  let count = 0;
  let bytes = 0;
  for (const text of texts) {
    count += 1;
    bytes += textBytes(text);
  }
  return { count, textBytes: bytes };
}

/**
 * Refuses a change that would take the Waiting list past its caps, before anything is recorded.
 * A change that does not grow the list (an edit that shortens a text) is always allowed, so an
 * over-full list (an older server, engine messages) can still be worked down.
 */
export function assertWaitingRoom(load: WaitingLoad, change: { addedMessages: number; addedBytes: number }): void {
  if (change.addedMessages > 0 && load.count + change.addedMessages > MAX_WAITING_MESSAGES) {
    throw new AtriumError(
      "queue_full",
      `This conversation already has ${load.count} waiting messages, the most it can hold (${MAX_WAITING_MESSAGES}). Wait for one to start, or withdraw one, then send again.`,
      { details: { limit: MAX_WAITING_MESSAGES, waiting: load.count } },
    );
  }
  if (change.addedBytes > 0 && load.textBytes + change.addedBytes > MAX_WAITING_TEXT_BYTES) {
    throw new AtriumError(
      "queue_full",
      `This would take this conversation's waiting messages past ${formatMiB(MAX_WAITING_TEXT_BYTES)} of text (they hold ${formatMiB(load.textBytes)} now). Wait for one to start, or withdraw one, then send again.`,
      { details: { limitBytes: MAX_WAITING_TEXT_BYTES, waitingBytes: load.textBytes } },
    );
  }
}

function formatMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}
