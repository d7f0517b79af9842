import { z } from "zod";
import type { SnapshotApi } from "../checkpoints/checkpoints";
import type { SnapshotOutcome } from "../checkpoints/snapshot-store";
import { MachineDisconnectedError } from "../ports/machine-port";
import type { GatewayLink, SnapshotQuestion } from "./gateway-link";

const outcomeSchema = z.union([z.object({ tree: z.string() }), z.object({ off: z.string() })]);
const changesSchema = z.object({
  files: z.array(z.object({ path: z.string(), status: z.enum(["added", "modified", "deleted"]), additions: z.number(), deletions: z.number() })),
  diff: z.string(),
});
const pathsSchema = z.array(z.string());

/**
 * A linked machine's checkpoints, as the gateway's Checkpoints uses them: the same four
 * operations as SnapshotStore, each run by the machine on its own files and snapshot git
 * dirs. The records naming the trees stay in the conversation's metadata on the gateway.
 */
export class RemoteSnapshots implements SnapshotApi {
  constructor(private readonly link: () => GatewayLink | undefined) {}

  async snapshot(cwd: string): Promise<SnapshotOutcome> {
    return outcomeSchema.parse(await this.run({ op: "snapshot", cwd }));
  }

  async changes(cwd: string, from: string, to: string, context?: number): Promise<z.infer<typeof changesSchema>> {
    return changesSchema.parse(await this.run({ op: "changes", cwd, from, to, ...(context === undefined ? {} : { context }) }));
  }

  async changedPaths(cwd: string, from: string, to: string, paths?: string[]): Promise<string[]> {
    return pathsSchema.parse(await this.run({ op: "changed_paths", cwd, from, to, ...(paths ? { paths } : {}) }));
  }

  async restore(cwd: string, tree: string, paths: string[]): Promise<void> {
    await this.run({ op: "restore", cwd, from: tree, paths });
  }

  private async run(question: SnapshotQuestion): Promise<unknown> {
    const link = this.link();
    if (!link?.isOpen) throw new MachineDisconnectedError("the machine is not connected");
    const answer = await link.snapshotOp(question);
    if (answer.error) throw new Error(`the machine: ${answer.error}`);
    return answer.result;
  }
}
