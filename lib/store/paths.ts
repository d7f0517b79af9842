import os from "node:os";
import path from "node:path";
import { assertId } from "./ids";

/** The data directory layout of DESIGN §2, in one place. */
export interface DataPaths {
  home: string;
  database: string;
  lock: string;
  token: string;
  /** Browser sign-in sessions (DESIGN §10): hashes only. */
  sessions: string;
  /** Linked machines (DESIGN §10b): token hashes only. */
  machines: string;
  config: string;
  agents: string;
  conversations: string;
  conversation(conversationId: string): string;
  metadata(conversationId: string): string;
  session(conversationId: string, sessionId: string): string;
  artifacts(conversationId: string): string;
  artifact(conversationId: string, artifactId: string): string;
  attachments(conversationId: string): string;
  uploads: string;
}

export function defaultHome(env: Record<string, string | undefined> = process.env): string {
  if (env.ATRIUM_HOME) return path.resolve(env.ATRIUM_HOME);
  const dataHome = env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share");
  return path.join(dataHome, "atrium");
}

export function dataPaths(home: string): DataPaths {
  const conversations = path.join(home, "conversations");
  const conversation = (conversationId: string) =>
    path.join(conversations, assertId(conversationId, "conversation id"));
  return {
    home,
    database: path.join(home, "metadata.db"),
    lock: path.join(home, "runtime.lock"),
    token: path.join(home, "token"),
    sessions: path.join(home, "sessions.json"),
    machines: path.join(home, "machines.json"),
    config: path.join(home, "config.json"),
    agents: path.join(home, "agents"),
    conversations,
    conversation,
    metadata: (conversationId) => path.join(conversation(conversationId), "metadata.jsonl"),
    session: (conversationId, sessionId) =>
      path.join(conversation(conversationId), `${assertId(sessionId, "session id")}.jsonl`),
    artifacts: (conversationId) => path.join(conversation(conversationId), "artifacts"),
    artifact: (conversationId, artifactId) =>
      path.join(conversation(conversationId), "artifacts", assertId(artifactId, "artifact id")),
    attachments: (conversationId) => path.join(conversation(conversationId), "attachments"),
    uploads: path.join(home, "uploads"),
  };
}
