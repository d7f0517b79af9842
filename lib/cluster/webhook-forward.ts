import { readBodyLimited } from "../api/body";
import { WEBHOOK_BODY_LIMIT } from "../api/github-webhook";
import { NODE_HEADER, SIGNATURE_HEADER } from "../auth/cluster-signature";
import type { GithubEvent } from "../engine/webhook-matching";
import { AtriumError } from "../errors";
import { isId } from "../store/ids";
import type { RegisteredCluster } from "./cluster-registry";

/**
 * DESIGN §6 and §10c: a GitHub webhook reaches one node (behind a load balancer, any of them).
 * That node verifies GitHub's signature, wakes the waiting objectives it holds, and hands the
 * event to the holder of each other one: a node-to-node call to the same path, signed with
 * ATRIUM_CLUSTER_SECRET, naming that conversation. Only such a signed call can name one.
 */
const WEBHOOK_PATH = "/api/webhooks/github";
/** The event again as JSON with its conversation: room for an event GitHub's limit let in, written out again. */
const FORWARDED_LIMIT = 2 * WEBHOOK_BODY_LIMIT;
/** How long a holder has to wake its objective and answer; one that does not is given up on. */
const ANSWER_WITHIN_MS = 10_000;

/** An event another node verified, for one conversation this node holds. */
export interface ForwardedWake {
  conversationId: string;
  event: GithubEvent;
}

/** Whether the call carries a node's headers: GitHub never sends them, so it is a node's (or a forgery). */
export function isNodeWebhook(request: Request): boolean {
  return request.headers.get(NODE_HEADER) !== null || request.headers.get(SIGNATURE_HEADER) !== null;
}

/**
 * Hands a verified event to the node holding `conversationId`; how many objectives it woke there
 * (0 or 1). A holder that cannot be reached or refuses is logged and counts 0: the webhook's
 * other conversations are woken all the same.
 */
export async function wakeOnHolder(
  cluster: RegisteredCluster,
  holder: { nodeId: string; url: string | null },
  conversationId: string,
  event: GithubEvent,
  log: (message: string) => void,
): Promise<number> {
  const missed = (why: string) => {
    log(`a GitHub webhook did not wake conversation ${conversationId}: its holder, node ${holder.nodeId}, ${why}`);
    return 0;
  };
  if (!holder.url) return missed("gave no ATRIUM_NODE_URL");
  const body = Buffer.from(JSON.stringify({ conversationId, event } satisfies ForwardedWake));
  const headers = { ...cluster.signatures.sign(cluster.nodeId, { method: "POST", path: WEBHOOK_PATH, body }), "content-type": "application/json" };
  try {
    const answer = await fetch(`${holder.url}${WEBHOOK_PATH}`, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    const text = await answer.text();
    if (answer.status !== 202) return missed(`at ${holder.url}, answered ${answer.status}: ${text.slice(0, 200)}`);
    const matched = (JSON.parse(text) as { matched?: unknown }).matched;
    return typeof matched === "number" && Number.isInteger(matched) && matched >= 0 ? matched : missed(`at ${holder.url}, answered without a count`);
  } catch (error) {
    return missed(`at ${holder.url}, cannot be reached (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * The event another node forwarded: its cluster signature checked over the method, path and
 * body, so nothing outside the cluster can name a conversation to wake. A missing or bad
 * signature is refused (401 unauthorized).
 */
export async function readNodeWebhook(request: Request, cluster: RegisteredCluster): Promise<ForwardedWake> {
  const body = Buffer.from(await readBodyLimited(request, FORWARDED_LIMIT, `forwarded webhooks are limited to ${FORWARDED_LIMIT} bytes`));
  const url = new URL(request.url);
  const check = cluster.signatures.check(
    { [NODE_HEADER]: request.headers.get(NODE_HEADER) ?? undefined, [SIGNATURE_HEADER]: request.headers.get(SIGNATURE_HEADER) ?? undefined },
    { method: request.method, path: `${url.pathname}${url.search}`, body },
  );
  if (!check.ok) throw new AtriumError("unauthorized", `the node-to-node call was refused (${check.reason})`);
  let parsed: Partial<ForwardedWake> | null;
  try {
    parsed = JSON.parse(body.toString("utf8")) as Partial<ForwardedWake> | null;
  } catch {
    throw new AtriumError("bad_request", "the forwarded webhook is not valid JSON");
  }
  const event = parsed?.event;
  const wellFormed =
    isId(parsed?.conversationId) &&
    typeof event === "object" &&
    event !== null &&
    typeof event.name === "string" &&
    (event.delivery === null || typeof event.delivery === "string") &&
    typeof event.payload === "object" &&
    event.payload !== null;
  if (!wellFormed) throw new AtriumError("bad_request", "the forwarded webhook must name a conversationId and carry an event {name, delivery, payload}");
  return { conversationId: parsed!.conversationId!, event: { name: event.name, delivery: event.delivery, payload: event.payload } };
}
