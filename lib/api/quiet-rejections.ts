/**
 * Requests turned away for reasons a client controls — a webhook with a bad signature, a
 * client that hung up mid-body — are counted, not logged one line (or one stack) each
 * (DESIGN §10): the first of each kind is logged, then at most one summary a minute.
 */
export type RejectionKind = "webhook_signature" | "client_hung_up";

const DESCRIPTION: Record<RejectionKind, string> = {
  webhook_signature: "GitHub webhook requests rejected for a missing or wrong signature",
  client_hung_up: "requests whose client hung up before the body was read",
};

const SUMMARY_INTERVAL_MS = 60_000;

export class QuietRejections {
  private readonly totals: Record<RejectionKind, number> = { webhook_signature: 0, client_hung_up: 0 };
  private readonly unreported: Record<RejectionKind, number> = { webhook_signature: 0, client_hung_up: 0 };
  private readonly lastLogAt: Partial<Record<RejectionKind, number>> = {};

  constructor(
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  count(kind: RejectionKind): void {
    this.totals[kind] += 1;
    this.unreported[kind] += 1;
    const last = this.lastLogAt[kind];
    if (last !== undefined && this.now() - last < SUMMARY_INTERVAL_MS) return;
    this.log(`${DESCRIPTION[kind]}: ${this.unreported[kind]} since the last note (${this.totals[kind]} in all); the next note comes in a minute at the earliest`);
    this.unreported[kind] = 0;
    this.lastLogAt[kind] = this.now();
  }

  total(kind: RejectionKind): number {
    return this.totals[kind];
  }
}

const registry = new WeakMap<object, QuietRejections>();

/** One counter per Runtime (tests start several in one process). */
export function quietRejectionsOf(runtime: { context: { log: (message: string) => void } }): QuietRejections {
  let counter = registry.get(runtime);
  if (!counter) {
    counter = new QuietRejections((message) => runtime.context.log(message));
    registry.set(runtime, counter);
  }
  return counter;
}

/** A body read that failed because the client went away (not an error of Atrium's). */
export function isClientHangUp(error: unknown, request: Request | undefined): boolean {
  if (request?.signal.aborted) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return error.name === "AbortError" || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE" || /^(aborted|terminated)$/.test(error.message);
}
