/**
 * Drafts (DESIGN §9): unsent text kept by the browser, one per conversation and one per
 * agent's new chat. Attachments are never kept. Signing out clears every draft.
 */
const PREFIX = "atrium:draft:";

export function conversationDraftKey(conversationId: string): string {
  return `${PREFIX}conversation:${conversationId}`;
}

export function newChatDraftKey(agent: string): string {
  return `${PREFIX}new:${agent}`;
}

export function readDraft(key: string): string {
  try {
    return window.localStorage.getItem(key) ?? "";
  } catch {
    return "";
  }
}

export function writeDraft(key: string, text: string): void {
  try {
    if (text === "") window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, text);
  } catch {
    // Storage full or disabled: the draft simply is not kept.
  }
}

export function clearDraft(key: string): void {
  writeDraft(key, "");
}

export function clearConversationDraft(conversationId: string): void {
  clearDraft(conversationDraftKey(conversationId));
}

export function clearAllDrafts(): void {
  try {
    const keys: string[] = [];
    for (let index = 0; index < window.localStorage.length; index += 1) {
      const key = window.localStorage.key(index);
      if (key?.startsWith(PREFIX)) keys.push(key);
    }
    for (const key of keys) window.localStorage.removeItem(key);
  } catch {
    // Nothing stored, nothing to clear.
  }
}
