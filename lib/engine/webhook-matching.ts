import type { Objective } from "../events/entities";
import type { EngineOwner } from "./engine-owner";
import { currentObjective, queueSlice, setObjective } from "./objectives";

export interface GithubEvent {
  name: string;
  delivery: string | null;
  payload: Record<string, unknown>;
}

type Listener = { source: string; match: Record<string, string | number | boolean> };

/** Does a webhook satisfy a listener's match? `event` is the X-GitHub-Event name; other keys are dotted paths. */
export function matches(listener: Listener, event: GithubEvent): string[] | null {
  if (listener.source !== "github") return null;
  const matched: string[] = [];
  for (const [key, expected] of Object.entries(listener.match)) {
    const actual = key === "event" ? event.name : readPath(event.payload, key);
    if (actual === undefined || actual === null || String(actual) !== String(expected)) return null;
    matched.push(`${key}=${String(expected)}`);
  }
  return matched;
}

function readPath(value: unknown, dotted: string): unknown {
  let current = value;
  for (const part of dotted.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A short summary of the event for the slice it wakes: type, repository, action, the matched fields. */
export function summarize(event: GithubEvent, matched: string[]): string {
  const repository = readPath(event.payload, "repository.full_name");
  const action = readPath(event.payload, "action");
  return [
    `Event: GitHub ${event.name}${action ? ` (${String(action)})` : ""}${repository ? ` on ${String(repository)}` : ""}.`,
    `Matched: ${matched.join(", ")}.`,
    event.delivery ? `Delivery: ${event.delivery}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** Wakes one conversation's objective when the event matches its listener; returns whether it did. */
export async function wakeObjective(actor: EngineOwner, event: GithubEvent): Promise<boolean> {
  const objective: Objective | null = currentObjective(actor);
  if (!objective || objective.status !== "waiting_event") return false;
  const listener = actor.records.listener(objective.id) as Listener | null;
  const matched = listener ? matches(listener, event) : null;
  if (!matched) return false;
  const reopened = await setObjective(actor, objective, { status: "open", listener: null, reason: null });
  await queueSlice(actor, reopened, summarize(event, matched));
  return true;
}

