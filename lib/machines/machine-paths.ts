import { promises as fs } from "node:fs";
import path from "node:path";
import { isWithin, realPathOf } from "../sandbox/real-paths";

/**
 * The machine's own check of what the gateway asks (DESIGN §10b): every cwd and file path is
 * resolved here, symlinks followed, and must land inside one of the roots given to
 * `atrium machine connect`. The gateway's lexical check is a courtesy; this one decides.
 */
const AGENTS_FILE_LIMIT = 32 * 1024;

export class MachineRoots {
  readonly roots: string[];

  constructor(roots: readonly string[]) {
    this.roots = [...new Set(roots.map((root) => realPathOf(root)))];
  }

  contains(target: string): boolean {
    const real = realPathOf(target);
    return this.roots.some((root) => isWithin(real, root));
  }

  /** A cwd the gateway proposes: the real path, or why it cannot be used. */
  async checkCwd(cwd: string): Promise<{ path: string | null; error: "missing_cwd" | "cwd_outside_roots" | null; message: string | null }> {
    if (!path.isAbsolute(cwd)) return { path: null, error: "cwd_outside_roots", message: `${cwd} is not an absolute path` };
    const real = realPathOf(cwd);
    if (!this.roots.some((root) => isWithin(real, root))) {
      return { path: null, error: "cwd_outside_roots", message: `${cwd} resolves to ${real}, outside this machine's roots (${this.roots.join(", ")})` };
    }
    const stats = await fs.stat(real).catch(() => null);
    if (!stats?.isDirectory()) return { path: null, error: "missing_cwd", message: `the working directory ${cwd} does not exist on this machine` };
    return { path: real, error: null, message: null };
  }

  /** `<cwd>/AGENTS.md` (DESIGN §4) when it lies inside the roots, symlinks followed; cut at 32 KiB like the gateway's own. */
  async agentsFile(cwd: string): Promise<string | null> {
    const file = path.join(cwd, "AGENTS.md");
    if (!path.isAbsolute(cwd) || !this.contains(file)) return null;
    const text = await fs.readFile(realPathOf(file), "utf8").catch(() => null);
    if (text === null) return null;
    return text.length > AGENTS_FILE_LIMIT ? `${text.slice(0, AGENTS_FILE_LIMIT)}\n[AGENTS.md truncated]` : text;
  }

  /** Why a call may not run here (its cwd or its path outside the roots), or null when it may. */
  refusal(cwd: string, input: unknown): string | null {
    if (!path.isAbsolute(cwd) || !this.contains(cwd)) return `the working directory ${cwd} is outside this machine's roots`;
    const requested = typeof input === "object" && input !== null ? (input as { path?: unknown }).path : undefined;
    if (typeof requested === "string" && requested !== "" && !this.contains(path.resolve(cwd, requested))) {
      return `${requested} resolves to ${realPathOf(path.resolve(cwd, requested))}, outside this machine's roots (${this.roots.join(", ")})`;
    }
    return null;
  }
}
