import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { canonicalJson } from "./canonical-json";

/** Beside the token, never inside a conversation directory, so no export or copy carries it. */
export const RECORD_KEY_FILE = "record.key";

export interface DecisionSubject {
  conversationId: string;
  approvalId: string;
  itemId: string;
  toolName: string;
  input: unknown;
}

/**
 * Proofs that a record was written by this data directory (DESIGN §2: a decision recorded
 * elsewhere authorizes nothing here). An HMAC with a key made at first use binds a turn's start
 * and an approval's decision to this home; a copied or imported record's proof does not verify.
 */
export class RecordProofs {
  /** `key`: the cluster's record key (DESIGN §10c: every node signs and verifies with the same one); else the home's record.key. */
  constructor(
    private readonly home: string,
    private key: Buffer | null = null,
  ) {}

  turnStarted(conversationId: string, turnId: string, sessionId: string): string {
    return this.sign(["turn.started", conversationId, turnId, sessionId]);
  }

  /** Covers the exact input the approval showed, so the proof approves that call and no other. */
  decision(subject: DecisionSubject, decision: "approve" | "deny"): string {
    const inputHash = crypto.createHash("sha256").update(canonicalJson(subject.input)).digest("hex");
    return this.sign(["approval.decided", subject.conversationId, subject.approvalId, subject.itemId, subject.toolName, inputHash, decision]);
  }

  verifyTurnStarted(proof: string | undefined, conversationId: string, turnId: string, sessionId: string): boolean {
    return same(proof, this.turnStarted(conversationId, turnId, sessionId));
  }

  verifyDecision(proof: string | undefined, subject: DecisionSubject, decision: "approve" | "deny"): boolean {
    return same(proof, this.decision(subject, decision));
  }

  private sign(parts: string[]): string {
    // Length-prefixed parts: no two different lists of parts give the same message.
    const message = parts.map((part) => `${Buffer.byteLength(part)}:${part}`).join("");
    return crypto.createHmac("sha256", this.secret()).update(message).digest("hex");
  }

  private secret(): Buffer {
    if (!this.key) this.key = loadOrCreateKey(path.join(this.home, RECORD_KEY_FILE));
    return this.key;
  }
}

function same(proof: string | undefined, expected: string): boolean {
  if (typeof proof !== "string" || proof.length !== expected.length) return false;
  return crypto.timingSafeEqual(Buffer.from(proof), Buffer.from(expected));
}

function loadOrCreateKey(file: string): Buffer {
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const text = fs.readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${file} is not a record key (64 hex digits); remove it to make a new one`);
  return Buffer.from(text, "hex");
}
