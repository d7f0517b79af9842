import crypto from "node:crypto";
import { AtriumError } from "../errors";
import type { Store } from "../store/store";
import { lookupRequestKey } from "../store/queries";
import { isCreationKeyClaimed } from "../store/store-cluster";

/** A creation that lost its key's claim looks again; a claim given back between two looks may cost another try. */
const MAX_CLAIM_ATTEMPTS = 3;

export type KeyReference = Record<string, unknown>;

/**
 * requestKey handling (DESIGN §3, §8). The key and a hash of the body are written with
 * the record the request created, so they survive restarts; concurrent duplicates wait
 * for the first and get its answer.
 */
export class RequestKeys {
  private readonly inFlight = new Map<string, { hash: string; promise: Promise<unknown> }>();

  constructor(
    private readonly store: Store,
    /**
     * A cluster node (DESIGN §10c): the conversation a creation's key made on any node, as the
     * database has it, once whole and indexed here (null: none). Only creations need it: any other
     * keyed request runs on its conversation's owner, whose index has it.
     */
    private readonly elsewhere?: (scope: string, key: string, hash: string) => Promise<{ conversationId: string; requestHash: string | null } | null>,
  ) {}

  async run<T>(
    scope: string,
    key: string | undefined,
    body: unknown,
    perform: (keyed: { requestKey?: string; requestHash?: string }) => Promise<T>,
    replay: (reference: KeyReference) => T | Promise<T>,
  ): Promise<T> {
    if (!key) return perform({});
    const hash = hashBody(body);
    const slot = `${scope}\u0000${key}`;
    const running = this.inFlight.get(slot);
    if (running) {
      if (running.hash !== hash) throw conflict(key);
      await running.promise.catch(() => undefined);
    }
    // A key written while the index was failing is in the files: catch the index up before looking.
    if (scope !== "") this.store.catchUp.ensureCurrent(scope);
    const remembered = lookupRequestKey(this.store.index, scope, key);
    if (remembered) {
      if (remembered.hash !== hash) throw conflict(key);
      // On a cluster node the creation may be another node's, indexed here before its first turn: replayed once whole.
      if (this.elsewhere) await this.elsewhere(scope, key, hash);
      return replay(remembered.reference);
    }
    if (running) {
      // The first attempt failed before writing anything: this one performs the work.
      return this.run(scope, key, body, perform, replay);
    }
    // In flight before anything is awaited: a duplicate arriving meanwhile waits for this one.
    const promise = this.firstAttempt(scope, key, hash, perform, replay);
    this.inFlight.set(slot, { hash, promise });
    try {
      return await promise;
    } finally {
      this.inFlight.delete(slot);
    }
  }

  /**
   * On a cluster node, a creation another node already made under this key is answered from it;
   * one made on another node at the same instant wins the key's claim in the database (this
   * creation is then undone, nothing of it written) and is answered the same way.
   */
  private async firstAttempt<T>(
    scope: string,
    key: string,
    hash: string,
    perform: (keyed: { requestKey?: string; requestHash?: string }) => Promise<T>,
    replay: (reference: KeyReference) => T | Promise<T>,
    attempt = 1,
  ): Promise<T> {
    const created = this.elsewhere ? await this.elsewhere(scope, key, hash) : null;
    if (created) {
      if (created.requestHash !== hash) throw conflict(key);
      return replay({ conversationId: created.conversationId });
    }
    try {
      return await perform({ requestKey: key, requestHash: hash });
    } catch (error) {
      if (!this.elsewhere || !isCreationKeyClaimed(error) || attempt >= MAX_CLAIM_ATTEMPTS) throw error;
      return this.firstAttempt(scope, key, hash, perform, replay, attempt + 1);
    }
  }
}

function conflict(key: string): AtriumError {
  return new AtriumError("idempotency_conflict", `requestKey "${key}" was already used with a different request body`);
}

export function hashBody(body: unknown): string {
  return crypto.createHash("sha256").update(canonicalJson(body)).digest("base64url");
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([name, entry]) => entry !== undefined && name !== "requestKey")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([name, entry]) => `${JSON.stringify(name)}:${canonicalJson(entry)}`).join(",")}}`;
}
