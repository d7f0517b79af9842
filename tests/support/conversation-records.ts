/** The first records of a conversation as the engine writes them, for tests and benches that append records directly. */
export function conversationCreated(conversationId: string, rootSessionId: string, title = "A conversation") {
  return {
    type: "conversation.created" as const,
    conversationId,
    title,
    titleSource: "auto" as const,
    agent: "default",
    model: "offline",
    effort: null,
    cwd: "/tmp",
    executor: "local",
    rootSessionId,
    forkedFrom: null,
  };
}

export function rootSessionCreated(sessionId: string) {
  return { type: "session.created" as const, sessionId, agent: "default", model: "offline", parentSessionId: null, depth: 0 };
}
