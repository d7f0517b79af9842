import type pg from "pg";
import { ulid } from "ulid";
import { z } from "zod";
import type { RecordFeed } from "../store/postgres/record-feed";
import { APPROVAL_RULE_CHANNEL } from "../store/postgres/schema";
import { listFilter, normalRuleFields, ruleMatches, type ApprovalRule, type ApprovalRuleBook, type RuleFields, type RuleTarget } from "../tools/approval-rules";

/** The longest a removal whose notice never arrived still answers on a node. */
const RELOAD_EVERY_MS = 30_000;

const noticeSchema = z.object({ op: z.enum(["put", "del"]), id: z.string() });

interface RuleRow {
  id: string;
  machine: string;
  path: string;
  tool: string;
  command_prefix: string | null;
  created_at: string;
}

const COLUMNS = "id, machine, path, tool, command_prefix, created_at";

function ruleOf(row: RuleRow): ApprovalRule {
  return { id: row.id, machine: row.machine, path: row.path, tool: row.tool, commandPrefix: row.command_prefix, createdAt: row.created_at };
}

/**
 * The "always allow" rules of a cluster (DESIGN §6, §10c): in `atrium_approval_rules`, shared by
 * every node. Each node keeps them all in memory, so a tool call's match stays synchronous and
 * costs no query: a rule made or removed on any node is announced on APPROVAL_RULE_CHANNEL at
 * commit, and every node reads the rules again when it hears it (a removal is dropped at once, on
 * the notice itself). After the listening connection was lost, and every RELOAD_EVERY_MS, the
 * rules are read again whole. Listing reads the table, so every node lists the same rules.
 */
export class ClusterApprovalRules implements ApprovalRuleBook {
  private rules: ApprovalRule[] = [];
  /** Bumped at each change heard or made here: a whole read that raced one reads again. */
  private changes = 0;
  private reading: Promise<void> | null = null;
  private readAgain = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly log: (message: string) => void,
  ) {}

  static async start(options: { pool: pg.Pool; feed: RecordFeed; log: (message: string) => void }): Promise<ClusterApprovalRules> {
    const book = new ClusterApprovalRules(options.pool, options.log);
    await options.feed.onChannel(APPROVAL_RULE_CHANNEL, (payload) => book.heard(payload));
    options.feed.onResync(() => book.refresh());
    await book.reload();
    const reread = setInterval(() => {
      if (options.pool.ended) return clearInterval(reread);
      book.refresh();
    }, RELOAD_EVERY_MS);
    reread.unref();
    return book;
  }

  async list(filter: { machine?: string; path?: string } = {}): Promise<ApprovalRule[]> {
    const rows = await this.pool.query<RuleRow>(`SELECT ${COLUMNS} FROM atrium_approval_rules ORDER BY position`);
    return listFilter(rows.rows.map(ruleOf), filter);
  }

  match(target: RuleTarget): ApprovalRule | null {
    return this.rules.find((rule) => ruleMatches(rule, target)) ?? null;
  }

  /** Adds a rule; one the cluster already has (a retried request, or made on another node) is kept once. */
  async add(fields: RuleFields, now = new Date()): Promise<ApprovalRule> {
    const wanted = normalRuleFields(fields);
    const rule = await insertRule(this.pool, { id: ulid(now.getTime()), ...wanted, createdAt: now.toISOString() });
    this.changes += 1;
    // Known here before the caller goes on (the turn's next call matches it at once).
    if (!this.rules.some((known) => known.id === rule.id)) this.rules = [...this.rules, rule];
    return rule;
  }

  async remove(id: string): Promise<boolean> {
    this.dropped(id);
    const gone = await this.pool.query(
      `WITH gone AS (DELETE FROM atrium_approval_rules WHERE id = $1 RETURNING id)
       SELECT pg_notify('${APPROVAL_RULE_CHANNEL}', json_build_object('op', 'del', 'id', id)::text) FROM gone`,
      [id],
    );
    return gone.rowCount === 1;
  }

  private heard(payload: string): void {
    let notice: z.infer<typeof noticeSchema>;
    try {
      notice = noticeSchema.parse(JSON.parse(payload));
    } catch {
      this.log(`approval rules: ignored a notice it could not read: ${payload}`);
      return;
    }
    if (notice.op === "del") this.dropped(notice.id);
    else this.changes += 1;
    this.refresh();
  }

  private dropped(id: string): void {
    this.changes += 1;
    this.rules = this.rules.filter((rule) => rule.id !== id);
  }

  /** Reads the rules again; one read at a time, and one more after it when asked meanwhile. */
  private refresh(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.reload()
      .catch((error: unknown) => this.log(`approval rules: could not read them again: ${String(error)}`))
      .finally(() => {
        this.reading = null;
        if (this.readAgain) {
          this.readAgain = false;
          this.refresh();
        }
      });
  }

  private async reload(): Promise<void> {
    const changes = this.changes;
    const rows = await this.pool.query<RuleRow>(`SELECT ${COLUMNS} FROM atrium_approval_rules ORDER BY position`);
    if (this.changes !== changes) return this.reload();
    this.rules = rows.rows.map(ruleOf);
  }
}

/**
 * Inserts a rule unless the cluster has it (the same id, or the same project, tool and prefix),
 * announcing it to every node; answers the rule the cluster keeps.
 */
export async function insertRule(pool: pg.Pool, rule: ApprovalRule): Promise<ApprovalRule> {
  const made = await pool.query<RuleRow>(
    `WITH made AS (
       INSERT INTO atrium_approval_rules (id, machine, path, tool, command_prefix, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS})
     SELECT ${COLUMNS}, pg_notify('${APPROVAL_RULE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM made`,
    [rule.id, rule.machine, rule.path, rule.tool, rule.commandPrefix, rule.createdAt],
  );
  if (made.rows[0]) return ruleOf(made.rows[0]);
  const kept = await pool.query<RuleRow>(
    `SELECT ${COLUMNS} FROM atrium_approval_rules WHERE id = $1 OR (machine = $2 AND path = $3 AND tool = $4 AND coalesce(command_prefix, '') = coalesce($5, '')) ORDER BY position LIMIT 1`,
    [rule.id, rule.machine, rule.path, rule.tool, rule.commandPrefix],
  );
  if (!kept.rows[0]) throw new Error(`approval rule ${rule.id} was neither added nor found`);
  return ruleOf(kept.rows[0]);
}

/** Whether the cluster already has this rule (its id, or the same project, tool and prefix). */
export async function ruleKnown(pool: pg.Pool, rule: ApprovalRule): Promise<boolean> {
  const found = await pool.query(
    `SELECT 1 FROM atrium_approval_rules WHERE id = $1 OR (machine = $2 AND path = $3 AND tool = $4 AND coalesce(command_prefix, '') = coalesce($5, ''))`,
    [rule.id, rule.machine, rule.path, rule.tool, rule.commandPrefix],
  );
  return (found.rowCount ?? 0) > 0;
}
