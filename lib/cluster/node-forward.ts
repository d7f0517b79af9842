import { setTimeout as sleep } from "node:timers/promises";
import { readBodyLimited } from "../api/body";
import { JSON_BODY_LIMIT } from "../api/request";
import { NODE_HEADER, SIGNATURE_HEADER } from "../auth/cluster-signature";
import { AtriumError, isAtriumError } from "../errors";
import type { Runtime } from "../engine/runtime";
import type { IndexReads } from "../store/index-reads";
import { getCluster, type RegisteredCluster } from "./cluster-registry";

/** Request headers a forwarded call carries on (the holder answers as if asked directly). */
const CARRIED_REQUEST = ["content-type", "accept", "last-event-id"];
/** Answer headers brought back. */
const CARRIED_ANSWER = ["content-type", "cache-control", "location", "x-accel-buffering"];

/** How long the holder has to start its answer (an event stream then runs as long as it runs). */
const ANSWER_WITHIN_MS = 10_000;
/**
 * How long a call waits for the lease of a holder that is not listening: a clean stop closes its
 * port first and hands its leases back a moment later; a dead holder's lease runs out later (503).
 */
const HOLDER_GONE_PATIENCE_MS = 3_000;

/** Routes whose first id names (or leads to) one conversation: their commands run on its lease holder. */
const ROUTED = /^\/api\/(conversations|turns|approvals|questions)\/([0-9A-HJKMNP-TV-Z]{26})(\/|$)/;
/**
 * A conversation's files, read from the database by whichever node is asked (DESIGN §10c), with
 * the same access rules: never forwarded, so a dead holder whose lease is still running out does
 * not make them unreadable.
 */
const READ_FROM_DATABASE = /^\/api\/conversations\/[0-9A-HJKMNP-TV-Z]{26}\/(attachments|artifacts)\/[^/]+$/;
/** Where conversations are created: one on a machine linked to another node is created there. */
const CREATE_PATH = "/api/conversations";
/**
 * Set on a call a node forwarded on once more (the lease or the machine moved while it was on its
 * way): it is answered where it lands, so a call crosses at most two nodes.
 */
const HOP_HEADER = "x-atrium-node-hop";

/** Whether a path (as the router routes it) is one a node forwards to another: only these pass the gate on a node signature. */
export function isForwardedPath(pathname: string): boolean {
  return ROUTED.test(pathname) || pathname === CREATE_PATH;
}

/**
 * DESIGN §10c, "any node answers any request": a request about one conversation is answered by
 * the node holding its lease. Here when this node holds it or takes it (nobody did); otherwise the
 * request is forwarded whole to the holder, signed with ATRIUM_CLUSTER_SECRET, and its answer
 * (an event stream included, with the holder's event ids) streamed back. Null: answer here (a
 * conversation no node has is answered here too, as a single node answers it); a Request: answer
 * this one here (the lease came here after the call's body was read to forward it).
 */
export async function forwardToHolder(request: Request, runtime: Runtime): Promise<Response | Request | null> {
  const cluster = getCluster();
  if (!cluster || !runtime.cluster) return null;
  const url = new URL(request.url);
  const forwarded = request.headers.get(NODE_HEADER) !== null;
  // Only a node's (signed) call may say it hopped already.
  const hopped = forwarded && request.headers.get(HOP_HEADER) !== null;
  if (url.pathname === CREATE_PATH) return forwarded ? null : createOnMachineNode(cluster, request, runtime);
  const match = ROUTED.exec(url.pathname);
  if (!match) return null;
  const method = request.method.toUpperCase();
  if ((method === "GET" || method === "HEAD") && READ_FROM_DATABASE.test(url.pathname)) return null;
  const conversationId = match[1] === "conversations" ? match[2]! : await conversationOf(runtime.cluster.placement.reads, match[1]!, match[2]!);
  if (!conversationId) return null;
  // A call that has hopped once is answered here: it goes nowhere else, even after its machine.
  let placement = await runtime.locate(conversationId, { follow: !hopped });
  // Missing: answered here as on a single node (its input checked first, then 404 not_found).
  if (placement.kind === "here" || placement.kind === "missing") return null;
  if (hopped) throw new AtriumError("node_unavailable", `conversation ${conversationId} moved to another node; retry the request`);
  const body = await commandBody(request);
  const pathAndQuery = `${url.pathname}${url.search}`;
  // A holder not listening (stopping cleanly, or dead) never saw the call, so it is sent again
  // where the lease is once it is handed back (at once after a clean stop) or taken here.
  const waitUntil = Date.now() + HOLDER_GONE_PATIENCE_MS;
  for (let attempt = 0; ; attempt += 1) {
    if (!placement.url) throw new AtriumError("node_unavailable", `node ${placement.nodeId} holds conversation ${conversationId} but gave no ATRIUM_NODE_URL`);
    try {
      // Read your writes on the node you asked: the holder answers once its records and their index
      // rows are committed, and this node reads a conversation it does not hold from those rows.
      return await forward(cluster, request, pathAndQuery, placement.url, forwarded, body);
    } catch (error) {
      if (!(error instanceof HolderNotListening) || Date.now() >= waitUntil || request.signal.aborted) throw error;
      if (attempt === 0) runtime.context.log(`node ${placement.nodeId} holds conversation ${conversationId} but is not listening; waiting for its lease`);
    }
    await sleep(Math.min(50 * 2 ** attempt, 400), undefined, { signal: request.signal });
    placement = await runtime.locate(conversationId, { follow: true, fresh: true });
    // A client gone meanwhile is not answered here: nothing runs for it.
    request.signal.throwIfAborted();
    if (placement.kind === "here" || placement.kind === "missing") return withBody(request, body);
  }
}

/**
 * DESIGN §10c: a conversation created on a machine linked to another node is created there (its
 * cwd is checked on the machine, and its turn's tool calls run through that node's link). Null:
 * created here (a local machine, one linked here or offline, or a body the route refuses).
 */
async function createOnMachineNode(cluster: RegisteredCluster, request: Request, runtime: Runtime): Promise<Response | null> {
  if (request.method.toUpperCase() !== "POST") return null;
  let machine: unknown;
  try {
    machine = ((await peekJson(request)) as { machine?: unknown } | null)?.machine;
  } catch {
    return null;
  }
  if (typeof machine !== "string") return null;
  const machineId = runtime.machines.machineIdOf(machine);
  const holder = machineId && !runtime.machines.isLocal(machineId) ? runtime.machines.linkHolder(machineId) : null;
  if (!holder?.url) return null;
  const url = new URL(request.url);
  return forward(cluster, request, `${url.pathname}${url.search}`, holder.url, false, await commandBody(request));
}

/**
 * The JSON of a copy of the body (null: none, or past the route's limit), the original left for
 * the route to read and check. Past the limit the copy is cancelled, never drained, so no more of
 * the body than the limit is held for the route.
 */
async function peekJson(request: Request): Promise<unknown> {
  const body = await peekBody(request);
  return body === null || body.length === 0 ? null : JSON.parse(body.toString("utf8"));
}

/** A copy of the body (empty: none; null: past JSON_BODY_LIMIT), the original left for the route. */
async function peekBody(request: Request): Promise<Buffer | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (!(declared <= JSON_BODY_LIMIT)) return null;
  // Nothing to read; and a copy made of a body the route refuses unread would hold what the route drains.
  if (!request.body) return Buffer.alloc(0);
  try {
    return Buffer.from(await readBodyLimited(request.clone(), JSON_BODY_LIMIT, "past the JSON limit", "cancel"));
  } catch (error) {
    if (isAtriumError(error) && error.code === "payload_too_large") return null;
    throw error;
  }
}

/** The body a routed call carries on. Every routed command takes a JSON body: one past its limit is refused here, never held whole. */
async function commandBody(request: Request): Promise<Buffer<ArrayBuffer>> {
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "HEAD") return Buffer.alloc(0);
  return Buffer.from(await readBodyLimited(request, JSON_BODY_LIMIT, `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`));
}

/** The call again, with the body already read from it. */
function withBody(request: Request, body: Buffer<ArrayBuffer>): Request {
  const method = request.method.toUpperCase();
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(request.url, { method, headers: request.headers, body: hasBody ? body : undefined, signal: request.signal });
}

/** The holder's address refused the connection: nothing listens there, so the call never reached it. */
class HolderNotListening extends AtriumError {
  constructor(target: string, cause: unknown) {
    super("node_unavailable", `the node holding this conversation (${target}) cannot be reached; retry the request`, { cause });
  }
}

function refused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } } | null)?.cause;
  return cause?.code === "ECONNREFUSED" || ((cause?.errors?.length ?? 0) > 0 && cause!.errors!.every((each) => each.code === "ECONNREFUSED"));
}

async function forward(cluster: RegisteredCluster, request: Request, pathAndQuery: string, target: string, hop: boolean, body: Buffer<ArrayBuffer>): Promise<Response> {
  const method = request.method.toUpperCase();
  const headers: Record<string, string> = cluster.signatures.sign(cluster.nodeId, { method, path: pathAndQuery, body });
  if (hop) headers[HOP_HEADER] = "1";
  for (const name of CARRIED_REQUEST) {
    const value = request.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  // A holder that does not answer (paused, cut off) is given up on; its lease runs out meanwhile.
  const patience = new AbortController();
  const timer = setTimeout(() => patience.abort(new Error("no answer")), ANSWER_WITHIN_MS);
  let answer: Response;
  try {
    const signal = AbortSignal.any([request.signal, patience.signal]);
    answer = await fetch(`${target}${pathAndQuery}`, { method, headers, body: body.length > 0 ? body : undefined, redirect: "manual", signal });
  } catch (error) {
    if (refused(error) && !patience.signal.aborted) throw new HolderNotListening(target, error);
    throw new AtriumError("node_unavailable", `the node holding this conversation (${target}) cannot be reached; retry the request`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  const carried = new Headers();
  for (const name of CARRIED_ANSWER) {
    const value = answer.headers.get(name);
    if (value !== null) carried.set(name, value);
  }
  return new Response(answer.body, { status: answer.status, headers: carried });
}

/** The conversation a turn, approval or question belongs to, from the cluster's index (null: no such one). */
async function conversationOf(reads: IndexReads, kind: string, id: string): Promise<string | null> {
  const found = kind === "turns" ? await reads.getTurn(id) : kind === "approvals" ? await reads.getApproval(id) : await reads.getQuestion(id);
  return found?.conversationId ?? null;
}

/**
 * A call another node forwarded (DESIGN §10c): its signature checked over the method, path and
 * body. True: a valid node call (it stands for the user the forwarding node authenticated);
 * false: no node headers (authenticate as usual). A bad signature is refused.
 */
export async function isNodeCall(request: Request): Promise<boolean> {
  const cluster = getCluster();
  const nodeId = request.headers.get(NODE_HEADER);
  const signature = request.headers.get(SIGNATURE_HEADER);
  // A single node knows no node calls: such headers are ignored and the request authenticated as usual.
  if ((!nodeId && !signature) || !cluster) return false;
  const url = new URL(request.url);
  // Every forwarded call carries a JSON body within its limit: a larger one is not read whole to check it.
  const body = await peekBody(request);
  if (body === null) throw new AtriumError("payload_too_large", `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
  const check = cluster.signatures.check(
    { [NODE_HEADER]: nodeId ?? undefined, [SIGNATURE_HEADER]: signature ?? undefined },
    { method: request.method, path: `${url.pathname}${url.search}`, body },
  );
  if (!check.ok) throw new AtriumError("unauthorized", `the node-to-node call was refused (${check.reason})`);
  return true;
}
