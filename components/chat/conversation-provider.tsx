"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { ConversationStore } from "./use-conversation";

const ConversationContext = createContext<ConversationStore | null>(null);

/** Hands one useConversation store to the conversation view's parts. */
export function ConversationProvider({ store, children }: { store: ConversationStore; children: ReactNode }) {
  return <ConversationContext value={store}>{children}</ConversationContext>;
}

/** The id of the conversation around, if any (parts also shown outside a conversation page use it). */
export function useOptionalConversationId(): string | null {
  return useContext(ConversationContext)?.id ?? null;
}

/** The conversation the surrounding ConversationProvider holds. */
export function useConversationContext(): ConversationStore {
  const store = useContext(ConversationContext);
  if (!store) throw new Error("useConversationContext needs a ConversationProvider above it");
  return store;
}
