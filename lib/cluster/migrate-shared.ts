import type pg from "pg";
import { SessionStore } from "../auth/session-store";
import { MachineRecords } from "../machines/machine-records";
import { MACHINE_CHANNEL, SESSION_CHANNEL } from "../store/postgres/schema";
import { databaseJson } from "../store/postgres/database-json";
import { ApprovalRules } from "../tools/approval-rules";
import { insertRule, ruleKnown } from "./cluster-approval-rules";

export interface SharedStateReport {
  machines: { copied: string[]; alreadyThere: string[]; refused: Array<{ name: string; reason: string }> };
  sessions: { copied: number; alreadyThere: number };
  approvalRules: { copied: number; alreadyThere: number };
}

/**
 * `atrium migrate`'s second part (DESIGN §10c): what a data directory shares beside its
 * conversations. Linked machines (`machines.json`: token hashes, never tokens) go into
 * `atrium_machines`, so each machine reconnects to the cluster with the token it has; browser
 * sessions (`sessions.json`: hashes only) into `atrium_sessions`, so nobody is signed out by the
 * move; "always allow" rules (`approval-rules.json`) into `atrium_approval_rules`, in their order. Idempotent: what the cluster already has is left as it is. A machine whose name or token
 * another machine of the cluster already has is refused (two machines cannot answer to one name,
 * and two gateways cannot share one token).
 */
export async function migrateSharedState(paths: { home: string; machines: string; sessions: string }, pool: pg.Pool): Promise<SharedStateReport> {
  const report: SharedStateReport = {
    machines: { copied: [], alreadyThere: [], refused: [] },
    sessions: { copied: 0, alreadyThere: 0 },
    approvalRules: { copied: 0, alreadyThere: 0 },
  };
  for (const machine of new MachineRecords(paths.machines).all()) {
    const clash = await pool.query<{ id: string; same_name: boolean; same_token: boolean }>(
      `SELECT id, record->>'name' = $2 AS same_name, record->>'tokenHash' = $3 AS same_token FROM atrium_machines
        WHERE id = $1 OR record->>'name' = $2 OR record->>'tokenHash' = $3`,
      [machine.id, machine.name, machine.tokenHash],
    );
    const same = clash.rows.find((row) => row.id === machine.id);
    const other = clash.rows.find((row) => row.id !== machine.id);
    if (other) {
      const reason = other.same_token ? "another machine of the cluster has its token" : `the cluster has another machine named "${machine.name}"`;
      report.machines.refused.push({ name: machine.name, reason });
    } else if (same) report.machines.alreadyThere.push(machine.name);
    else {
      await pool.query(
        `WITH saved AS (INSERT INTO atrium_machines (id, record) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id)
         SELECT pg_notify('${MACHINE_CHANNEL}', json_build_object('op', 'put', 'id', id)::text) FROM saved`,
        [machine.id, databaseJson(machine)],
      );
      report.machines.copied.push(machine.name);
    }
  }
  for (const session of new SessionStore(paths.sessions).stored()) {
    const saved = await pool.query(
      `WITH made AS (INSERT INTO atrium_sessions (hash, created_at, last_seen_at, browser) VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO NOTHING RETURNING hash)
       SELECT pg_notify('${SESSION_CHANNEL}', json_build_object('op', 'add', 'h', hash)::text) FROM made`,
      [session.hash, session.createdAt, session.lastSeenAt, session.browser],
    );
    if (saved.rowCount === 1) report.sessions.copied += 1;
    else report.sessions.alreadyThere += 1;
  }
  for (const rule of new ApprovalRules(paths.home).list()) {
    if (await ruleKnown(pool, rule)) report.approvalRules.alreadyThere += 1;
    else {
      await insertRule(pool, rule);
      report.approvalRules.copied += 1;
    }
  }
  return report;
}
