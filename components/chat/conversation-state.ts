import type { Approval, Conversation, Item, Question, Turn, Waiting } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";

/**
 * The conversation view's state: first painted from the server, then kept current by the
 * conversation's SSE stream. Items are keyed by id, so a snapshot or a replayed event
 * replaces what it names and never appends text twice.
 */
export interface RetryNotice {
  turnId: string;
  attempt: number;
  delayMs: number;
  message: string;
  until: number;
}

export interface ConversationState {
  conversation: Conversation;
  items: Item[];
  turns: Record<string, Turn>;
  waiting: Waiting[];
  approvals: Record<string, Approval>;
  questions: Record<string, Question>;
  retry: RetryNotice | null;
  /** The items are a window of the session's history: older ones are not loaded yet. */
  hasOlder: boolean;
  /** Newer ones are not loaded either (after a jump to a search hit); live items past the window wait until it reaches the end. */
  hasNewer: boolean;
  /** Live items past the window, kept current by the stream (deltas included) until the window reaches them. */
  beyond: Record<string, Item>;
}

/** A page fetched from the items API: older ones go before, newer ones after, a window (a jump) replaces the items. */
export interface PageAction {
  type: "page";
  placement: "older" | "newer" | "window";
  items: Item[];
  hasOlder?: boolean;
  hasNewer?: boolean;
}

export interface ResyncData {
  conversation: Conversation;
  items: Item[];
  turns: Turn[];
  approvals: Approval[];
  questions: Question[];
}

export type ConversationAction =
  | { type: "event"; event: ConversationEvent; receivedAt: number }
  | { type: "resync"; data: ResyncData }
  | { type: "conversation"; conversation: Conversation }
  | PageAction;

const OPEN_ITEM = new Set<Item["status"]>(["streaming", "waiting"]);
const OPEN_TURN = new Set<Turn["status"]>(["running", "waiting_approval", "waiting_user"]);

export function isTurnOpen(turn: Turn): boolean {
  return OPEN_TURN.has(turn.status);
}

export function initialState(input: Omit<ConversationState, "turns" | "approvals" | "questions" | "retry" | "hasOlder" | "hasNewer" | "beyond"> & {
  turns: Turn[];
  approvals: Approval[];
  questions: Question[];
  hasOlder?: boolean;
}): ConversationState {
  return {
    conversation: input.conversation,
    items: sortItems(input.items.filter((item) => item.sessionId === input.conversation.rootSessionId)),
    turns: Object.fromEntries(input.turns.map((turn) => [turn.id, turn])),
    waiting: input.waiting,
    approvals: Object.fromEntries(input.approvals.map((approval) => [approval.id, approval])),
    questions: Object.fromEntries(input.questions.map((question) => [question.id, question])),
    retry: null,
    hasOlder: input.hasOlder ?? false,
    hasNewer: false,
    beyond: {},
  };
}

function sortItems(items: Item[]): Item[] {
  return [...items].sort((a, b) => a.seq - b.seq);
}

function upsertItem(items: Item[], item: Item): Item[] {
  const index = items.findIndex((candidate) => candidate.id === item.id);
  if (index === -1) {
    const last = items[items.length - 1];
    return !last || last.seq < item.seq ? [...items, item] : sortItems([...items, item]);
  }
  const next = items.slice();
  next[index] = item;
  return next;
}

/** Past the end of a window that does not reach the latest item: left for the page that loads it. */
function beyondWindow(state: ConversationState, item: Item): boolean {
  if (!state.hasNewer) return false;
  const last = state.items[state.items.length - 1];
  return last !== undefined && item.seq > last.seq;
}

/** A live item past the window goes to the side, where events keep it current; otherwise into the items. */
function placeLive(state: ConversationState, item: Item): ConversationState {
  if (beyondWindow(state, item)) return { ...state, beyond: { ...state.beyond, [item.id]: item } };
  return { ...state, items: upsertItem(state.items, item) };
}

/** Of a fetched copy and the one the stream kept, the stream's, unless the fetch shows it finished. */
function fresher(local: Item | undefined, fetched: Item): Item {
  return local && !(OPEN_ITEM.has(local.status) && !OPEN_ITEM.has(fetched.status)) ? local : fetched;
}

/**
 * A fetched page has no cut with the stream, so the copies the stream kept (in the window or
 * beside it) win over the fetched ones; whatever lies past the new window waits beside it, and
 * joins the items once the window reaches the end.
 */
function applyPage(state: ConversationState, action: PageAction): ConversationState {
  const root = state.conversation.rootSessionId;
  const local = new Map<string, Item>([...Object.values(state.beyond), ...state.items].map((item) => [item.id, item]));
  const fetched = action.items.filter((item) => item.sessionId === root).map((item) => fresher(local.get(item.id), item));
  let items: Item[];
  if (action.placement === "window") items = sortItems(fetched);
  else {
    const known = new Set(state.items.map((item) => item.id));
    const fresh = fetched.filter((item) => !known.has(item.id));
    items = action.placement === "older" ? sortItems([...fresh, ...state.items]) : sortItems([...state.items, ...fresh]);
  }
  const hasOlder = action.placement === "newer" ? state.hasOlder : (action.hasOlder ?? false);
  const hasNewer = action.placement === "older" ? state.hasNewer : (action.hasNewer ?? false);
  const inItems = new Set(items.map((item) => item.id));
  const last = items[items.length - 1];
  const aside = [...local.values()].filter((item) => !inItems.has(item.id) && last !== undefined && item.seq > last.seq);
  if (!hasNewer) return { ...state, items: sortItems([...items, ...aside]), hasOlder, hasNewer, beyond: {} };
  return { ...state, items, hasOlder, hasNewer, beyond: Object.fromEntries(aside.map((item) => [item.id, item])) };
}

function upsertTurn(turns: Record<string, Turn>, turn: Turn): Record<string, Turn> {
  return { ...turns, [turn.id]: turn };
}

function withoutTurn<T extends { turnId: string }>(record: Record<string, T>, turnId: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value.turnId !== turnId));
}

function without<T>(record: Record<string, T>, id: string): Record<string, T> {
  if (!(id in record)) return record;
  const next = { ...record };
  delete next[id];
  return next;
}

function applyEvent(state: ConversationState, event: ConversationEvent, receivedAt: number): ConversationState {
  const root = state.conversation.rootSessionId;
  const isRoot = (sessionId: string | undefined) => sessionId === undefined || sessionId === root;
  switch (event.type) {
    case "snapshot": {
      let next = state;
      for (const item of event.items) if (item.sessionId === root) next = placeLive(next, item);
      let turns = state.turns;
      for (const turn of event.turns) if (turn.sessionId === root) turns = upsertTurn(turns, turn);
      return { ...next, turns, waiting: event.waiting.filter((entry) => entry.sessionId === root) };
    }
    case "item.created":
    case "item.updated":
    case "item.completed": {
      if (event.item.sessionId !== root) return state;
      const retry = state.retry?.turnId === event.item.turnId ? null : state.retry;
      return { ...placeLive(state, event.item), retry };
    }
    case "item.delta": {
      const grow = (item: Item): Item =>
        event.field === "output" ? { ...item, output: (item.output ?? "") + event.delta } : { ...item, text: (item.text ?? "") + event.delta };
      const aside = state.beyond[event.itemId];
      if (aside) return { ...state, beyond: { ...state.beyond, [aside.id]: grow(aside) } };
      const index = state.items.findIndex((item) => item.id === event.itemId);
      if (index === -1) return state;
      const item = state.items[index];
      const next = state.items.slice();
      next[index] = grow(item);
      const retry = state.retry?.turnId === item.turnId ? null : state.retry;
      return { ...state, items: next, retry };
    }
    case "turn.started":
    case "turn.updated":
      if (!isRoot(event.turn.sessionId)) return state;
      return { ...state, turns: upsertTurn(state.turns, event.turn) };
    case "turn.ended": {
      if (!isRoot(event.turn.sessionId)) return state;
      // Pending approvals of an interrupted turn are denied on the server without an event of their own.
      return {
        ...state,
        turns: upsertTurn(state.turns, event.turn),
        approvals: withoutTurn(state.approvals, event.turn.id),
        questions: withoutTurn(state.questions, event.turn.id),
        retry: state.retry?.turnId === event.turn.id ? null : state.retry,
      };
    }
    case "turn.retrying":
      if (!isRoot(event.sessionId) || !event.turnId) return state;
      return {
        ...state,
        retry: { turnId: event.turnId, attempt: event.attempt, delayMs: event.delayMs, message: event.error.message, until: receivedAt + event.delayMs },
      };
    case "queue.updated":
      return { ...state, waiting: event.waiting.filter((entry) => entry.sessionId === root) };
    case "approval.requested":
      return { ...state, approvals: { ...state.approvals, [event.approval.id]: event.approval } };
    case "approval.decided":
      return { ...state, approvals: without(state.approvals, event.approval.id) };
    case "question.asked":
      return { ...state, questions: { ...state.questions, [event.question.id]: event.question } };
    case "question.answered":
      return { ...state, questions: without(state.questions, event.question.id) };
    case "conversation.updated":
      // The event's `missing` is not computed by the server; keep the one the page loaded.
      return { ...state, conversation: { ...event.conversation, missing: state.conversation.missing } };
    case "objective.updated":
      return { ...state, conversation: { ...state.conversation, objective: event.objective } };
    default:
      return state;
  }
}

function applyResync(state: ConversationState, data: ResyncData): ConversationState {
  const root = data.conversation.rootSessionId;
  let next = state;
  for (const fetched of data.items) {
    if (fetched.sessionId !== root) continue;
    const known = next.beyond[fetched.id] ?? next.items.find((item) => item.id === fetched.id);
    // Only fill gaps: a known item is replaced when the fetch shows it finished while we were away.
    if (fresher(known, fetched) === fetched) next = placeLive(next, fetched);
  }
  const items = next.items;
  let turns = state.turns;
  for (const fetched of data.turns) {
    const known = turns[fetched.id];
    if (known && !isTurnOpen(known) && isTurnOpen(fetched)) continue;
    turns = upsertTurn(turns, fetched);
  }
  return {
    ...state,
    conversation: data.conversation,
    items,
    beyond: next.beyond,
    turns,
    approvals: Object.fromEntries(data.approvals.map((approval) => [approval.id, approval])),
    questions: Object.fromEntries(data.questions.map((question) => [question.id, question])),
  };
}

export function conversationReducer(state: ConversationState, action: ConversationAction): ConversationState {
  switch (action.type) {
    case "event":
      return applyEvent(state, action.event, action.receivedAt);
    case "resync":
      return applyResync(state, action.data);
    case "conversation":
      return { ...state, conversation: action.conversation };
    case "page":
      return applyPage(state, action);
  }
}

export function openTurn(state: ConversationState): Turn | null {
  let latest: Turn | null = null;
  for (const turn of Object.values(state.turns)) {
    if (!isTurnOpen(turn)) continue;
    if (!latest || turn.startedAt > latest.startedAt) latest = turn;
  }
  return latest;
}
