import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { WebSocket } from "ws";
import { AtriumError } from "../errors";
import {
  MachineDisconnectedError,
  type LinkedProject,
  type MachineCall,
  type MachineCallIo,
  type MachinePort,
  type McpRelay,
  type McpRelayHandlers,
  type McpRelaySpec,
} from "../ports/machine-port";
import type { ToolResult } from "../tools/tool";
import { GatewayLink } from "./gateway-link";
import { LINK_PROTOCOL, REVOKED_CLOSE_CODE, TRY_AGAIN_CLOSE_CODE, type MachineMessage } from "./link-protocol";
import { MachineRecords, newMachineToken, tokenHash, type LinkClaim, type MachineBook, type StoredMachine } from "./machine-records";
import { LOCAL_MACHINE_ID, type Machine } from "./machine-schema";
import { isWithinLexically, normalizeRoots } from "./roots";
import { RemoteSnapshots } from "./remote-snapshots";
import { parseLinkedProject } from "./linked-project";

export interface MachineRegistryOptions {
  /** `$ATRIUM_HOME/machines.json`. */
  file: string;
  /** A cluster node's machines, in the database (DESIGN §10c); the file's when absent. */
  records?: MachineBook;
  /** config `machines.local`. */
  localEnabled: boolean;
  /** How the gateway's own host confines tools (the built-in machine's `sandbox`). */
  localSandbox: string;
  defaultCwd: string;
  now(): Date;
  newId(): string;
  /** `machine.updated` on /api/events. */
  publish(machine: Machine): void;
  log(message: string): void;
  heartbeatMs?: number;
}

type Hello = Extract<MachineMessage, { type: "hello" }>;

interface LiveLink {
  link: GatewayLink;
  /** The dial's claim of the link in a cluster's database (0 on a single server). */
  claim: number;
  connectedAt: string;
  lastSeenAt: string;
}


/**
 * The gateway's machines (DESIGN §10b): the built-in `local` and the linked ones, their links,
 * and the MachinePort the engine and tools reach them through.
 */
export class MachineRegistry implements MachinePort {
  private readonly records: MachineBook;
  private readonly links = new Map<string, LiveLink>();
  private readonly startedAt: string;
  /** Per machine and cwd, the project files its last answer carried (DESIGN §4 discovery on the machine). */
  private readonly projects = new Map<string, LinkedProject>();
  /** Problems with a machine's project files already logged: a request reads them every turn. */
  private readonly reported = new Set<string>();
  private readonly linkedListeners: Array<(machineId: string) => void> = [];

  constructor(private readonly options: MachineRegistryOptions) {
    this.records = options.records ?? new MachineRecords(options.file);
    // Revoked on another node of the cluster: the link held here is cut at once.
    this.records.onRemoved?.((machineId, stored) => this.cutRevoked(machineId, stored));
    // Linked to (or cut from) another node of the cluster: this node's sidebars hear it too.
    this.records.onChanged?.((machineId) => {
      const stored = this.records.get(machineId);
      if (stored) this.options.publish(this.view(stored));
    });
    this.startedAt = options.now().toISOString();
  }

  list(): Machine[] {
    const linked = this.records.all().map((stored) => this.view(stored));
    return this.options.localEnabled ? [this.localView(), ...linked] : linked;
  }

  get(machineId: string): Machine {
    if (machineId === LOCAL_MACHINE_ID && this.options.localEnabled) return this.localView();
    const stored = this.records.get(machineId);
    if (!stored) throw new AtriumError("not_found", `machine ${machineId} was not found`);
    return this.view(stored);
  }

  /** Adds a machine; its token is shown this once. Published once stored where every node reads it. */
  async add(name: string, roots: readonly string[] | undefined): Promise<{ machine: Machine; token: string }> {
    if (name === LOCAL_MACHINE_ID) throw new AtriumError("bad_request", `"${LOCAL_MACHINE_ID}" is the built-in machine's name`);
    if (this.records.byName(name)) throw new AtriumError("bad_request", `a machine named "${name}" already exists`);
    const token = newMachineToken();
    const stored: StoredMachine = {
      id: this.options.newId(),
      name,
      tokenHash: tokenHash(token),
      allowedRoots: normalizeRoots(roots ?? []),
      createdAt: this.options.now().toISOString(),
      hostname: null,
      platform: null,
      roots: [],
      sandbox: null,
      lastSeenAt: null,
    };
    await this.records.put(stored);
    const machine = this.view(stored);
    this.options.publish(machine);
    return { machine, token };
  }

  /**
   * Revokes a machine: its record (and so its token) goes, and once that is stored its link is cut
   * at once. A removal the store refused (a cluster's database) cuts nothing and answers an error.
   */
  async remove(machineId: string): Promise<void> {
    if (machineId === LOCAL_MACHINE_ID) throw new AtriumError("bad_request", "the built-in machine cannot be removed; set machines.local to false in config.json");
    const stored = this.records.get(machineId);
    if (!stored) throw new AtriumError("not_found", `machine ${machineId} was not found`);
    await this.records.remove(machineId);
    this.cutRevoked(machineId, stored);
  }

  private cutRevoked(machineId: string, stored?: StoredMachine): void {
    const live = this.links.get(machineId);
    live?.link.cut(REVOKED_CLOSE_CODE, "this machine was revoked");
    this.links.delete(machineId);
    if (stored) this.options.publish({ ...this.view(stored), status: "offline" });
  }

  /** Who a presented machine token belongs to; undefined for an unknown or revoked one. */
  authenticate(token: string): StoredMachine | undefined {
    return token ? this.records.byToken(token) : undefined;
  }

  /** Before `authenticate`: null on a single server; on a cluster node, a lookup of a token made on another node. */
  prepareToken(token: string): Promise<void> | null {
    return this.records.prepareToken?.(token) ?? null;
  }

  /**
   * A cluster node, before a dial is let in: the machine's link taken for this node in the
   * database (null), or the other node holding it. A single server has nothing to claim.
   */
  claimLink(machineId: string): Promise<LinkClaim> {
    return this.records.claimLink?.(machineId) ?? Promise.resolve({ claimed: 0 });
  }

  /** A claimed dial that never became this node's link (refused, or closed before its hello): its own claim is let go. */
  unclaimLink(machineId: string, claim: number): void {
    this.records.letGo?.(machineId, claim);
  }

  /** The gateway's log (a link refused for a reason the machine is not told). */
  log(message: string): void {
    this.options.log(message);
  }

  isLinked(machineId: string): boolean {
    return this.links.get(machineId)?.link.isOpen === true;
  }

  /** A machine's link, after its hello: records what it reported and starts serving it. False: refused (the dial's claim is the caller's to let go). */
  attach(machineId: string, socket: WebSocket, hello: Hello, claim = 0): boolean {
    const stored = this.records.get(machineId);
    if (!stored) {
      socket.close(REVOKED_CLOSE_CODE, "this machine was revoked");
      return false;
    }
    // Two dials that both passed the upgrade's check before either said hello: the first one keeps the machine.
    if (this.isLinked(machineId)) {
      socket.close(1008, "this machine is already connected with this token");
      return false;
    }
    const at = this.options.now().toISOString();
    const roots = effectiveRoots(normalizeRoots(hello.roots), stored.allowedRoots);
    const renamed = hello.name && hello.name !== stored.name && !this.records.byName(hello.name) && hello.name !== LOCAL_MACHINE_ID ? hello.name : stored.name;
    const updated: StoredMachine = { ...stored, name: renamed, hostname: hello.hostname, platform: hello.platform, roots, sandbox: hello.sandbox, lastSeenAt: at };
    void this.records.put(updated);
    const live: LiveLink = {
      claim,
      connectedAt: at,
      lastSeenAt: at,
      link: new GatewayLink(socket, () => (live.lastSeenAt = this.options.now().toISOString()), this.options.heartbeatMs),
    };
    this.links.set(machineId, live);
    live.link.onClosed(() => this.detach(machineId, live));
    this.markLinked(machineId, live, at);
    live.link.send({ type: "welcome", machineId, name: updated.name, roots });
    this.options.log(`machine ${updated.name} connected from ${hello.hostname} (${hello.platform}), roots ${roots.join(", ") || "(none)"}`);
    if (hello.protocol !== LINK_PROTOCOL) this.options.log(`machine ${updated.name} speaks link protocol ${hello.protocol}, this gateway ${LINK_PROTOCOL}`);
    this.options.publish(this.view(updated));
    for (const listener of this.linkedListeners) listener(machineId);
    return true;
  }

  /**
   * A cluster: the link is marked as this node's. A claim no longer this node's (a newer dial,
   * another node) cuts it, so it is never held twice; so does a mark the database refused (no
   * other node would see the machine online): the machine redials.
   */
  private markLinked(machineId: string, live: LiveLink, at: string): void {
    void this.records.markLinked?.(machineId, live.claim, at).then((mark) => {
      if (mark === "linked" || !live.link.isOpen) return;
      const why = mark === "refused" ? "the database refused to record its link" : "its link was claimed again meanwhile";
      this.options.log(`machine ${this.nameOf(machineId)}: ${why}, this one is cut`);
      live.link.cut(TRY_AGAIN_CLOSE_CODE, `${why}; redial`);
    });
  }

  /** Cuts every link (the gateway is stopping); the machines redial. */
  closeAll(): void {
    for (const live of this.links.values()) live.link.cut(1001, "the gateway is stopping");
  }

  isLocal(machineId: string): boolean {
    return machineId === LOCAL_MACHINE_ID;
  }

  isOnline(machineId: string): boolean {
    if (machineId === LOCAL_MACHINE_ID) return this.options.localEnabled;
    return this.isLinked(machineId) || this.linkHolder(machineId) !== null;
  }

  nameOf(machineId: string): string {
    if (machineId === LOCAL_MACHINE_ID) return LOCAL_MACHINE_ID;
    return this.records.get(machineId)?.name ?? machineId;
  }

  async resolveCwd(machineId: string, cwd: string | undefined): Promise<string> {
    if (machineId === LOCAL_MACHINE_ID) {
      if (!this.options.localEnabled) throw new AtriumError("machine_offline", "the built-in machine is turned off (config machines.local); pick a linked machine");
      const resolved = path.resolve(cwd ?? this.options.defaultCwd);
      if (!isDirectory(resolved)) throw new AtriumError("missing_cwd", `the working directory ${resolved} does not exist`);
      return resolved;
    }
    const machine = this.get(machineId);
    const live = this.links.get(machineId);
    if (!live?.link.isOpen) throw offline(machine.name, this.records.linkedElsewhere?.(machineId));
    const wanted = cwd ?? machine.roots[0];
    if (!wanted) throw new AtriumError("cwd_outside_roots", `machine ${machine.name} offers no roots to work in`);
    if (!path.posix.isAbsolute(wanted)) throw new AtriumError("bad_request", `cwd must be an absolute path on machine ${machine.name}`);
    const normalized = path.posix.normalize(wanted);
    if (!machine.roots.some((root) => isWithinLexically(normalized, root))) {
      throw new AtriumError("cwd_outside_roots", `${wanted} is outside machine ${machine.name}'s roots (${machine.roots.join(", ")})`);
    }
    // The machine decides on the real path (symlinks followed): the gateway's lexical check is only the first gate.
    const answer = await live.link.checkCwd(normalized).catch((error: unknown) => {
      throw error instanceof MachineDisconnectedError ? offline(machine.name) : error;
    });
    if (answer.error) throw new AtriumError(answer.error, answer.message ?? `${wanted} cannot be used on machine ${machine.name}`);
    const resolved = answer.path ?? normalized;
    await this.refreshProject(machineId, resolved);
    return resolved;
  }

  projectFiles(machineId: string, cwd: string): LinkedProject | undefined {
    return this.projects.get(`${machineId}\0${cwd}`);
  }

  async refreshProject(machineId: string, cwd: string): Promise<void> {
    const live = this.links.get(machineId);
    if (machineId === LOCAL_MACHINE_ID || !live?.link.isOpen) return;
    try {
      const answer = await live.link.readProject(cwd);
      const project = parseLinkedProject(answer, (file, message) => {
        const key = `${machineId}\0${file}\0${message}`;
        if (this.reported.has(key)) return;
        this.reported.add(key);
        this.options.log(`machine ${this.nameOf(machineId)}: ${file} skipped: ${message}`);
      });
      this.projects.set(`${machineId}\0${cwd}`, project);
    } catch (error) {
      // The last answer stays: a request is still built, with what the machine said before.
      this.options.log(`machine ${this.nameOf(machineId)}: project files of ${cwd} not read (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /** The checkpoints of a linked machine's working directories, kept on the machine. */
  snapshots(machineId: string): RemoteSnapshots {
    return new RemoteSnapshots(() => this.links.get(machineId)?.link);
  }

  run(machineId: string, call: MachineCall, io: MachineCallIo): Promise<ToolResult> {
    const live = this.links.get(machineId);
    if (!live?.link.isOpen) return Promise.reject(new MachineDisconnectedError(`machine ${this.nameOf(machineId)} is not connected${this.elsewhereNote(machineId)}`));
    return live.link.call(call, io);
  }

  machineIdOf(idOrName: string): string | undefined {
    if (idOrName === LOCAL_MACHINE_ID) return this.options.localEnabled ? LOCAL_MACHINE_ID : undefined;
    return (this.records.get(idOrName) ?? this.records.byName(idOrName))?.id;
  }

  openMcp(machineId: string, spec: McpRelaySpec, handlers: McpRelayHandlers): McpRelay {
    const live = this.links.get(machineId);
    if (!live?.link.isOpen) throw new MachineDisconnectedError(`machine ${this.nameOf(machineId)} is offline${this.elsewhereNote(machineId)}`);
    return live.link.openMcp(spec, handlers);
  }

  onLinked(listener: (machineId: string) => void): void {
    this.linkedListeners.push(listener);
  }

  /**
   * DESIGN §10c: the other node of the cluster holding the machine's link (null: none, or this
   * one). A conversation on that machine is owned there, so its tool calls reach the machine.
   */
  linkHolder(machineId: string): { nodeId: string; url: string | null; connectedAt: string | null } | null {
    return this.records.linkHolder?.(machineId) ?? null;
  }

  /** A cluster node: where the machine is linked instead (a turn that started here keeps its node; the next one moves). */
  private elsewhereNote(machineId: string): string {
    const node = this.records.linkedElsewhere?.(machineId);
    return node ? ` to this node (it is connected to node ${node} of the cluster now; the conversation moves there once this turn has ended)` : "";
  }

  private detach(machineId: string, live: LiveLink): void {
    if (this.links.get(machineId) !== live) return;
    this.links.delete(machineId);
    this.records.letGo?.(machineId, live.claim);
    const stored = this.records.get(machineId);
    if (!stored) return;
    const updated = { ...stored, lastSeenAt: live.lastSeenAt };
    void this.records.put(updated);
    this.options.log(`machine ${stored.name} disconnected`);
    this.options.publish(this.view(updated));
  }

  private view(stored: StoredMachine): Machine {
    const live = this.links.get(stored.id);
    const here = live?.link.isOpen === true;
    // On a cluster, a machine linked to another live node is online from every node (DESIGN §10c).
    const online = here || this.records.linkedElsewhere?.(stored.id) != null;
    return {
      id: stored.id,
      name: stored.name,
      builtin: false,
      status: online ? "online" : "offline",
      hostname: stored.hostname,
      platform: stored.platform,
      roots: stored.roots.length ? stored.roots : stored.allowedRoots,
      sandbox: stored.sandbox ?? "unknown",
      // Linked to another node: when it linked there, as that node told the database.
      connectedAt: here ? live.connectedAt : online ? (this.linkHolder(stored.id)?.connectedAt ?? null) : null,
      lastSeenAt: here ? live.lastSeenAt : stored.lastSeenAt,
      createdAt: stored.createdAt,
    };
  }

  private localView(): Machine {
    return {
      id: LOCAL_MACHINE_ID,
      name: LOCAL_MACHINE_ID,
      builtin: true,
      status: "online",
      hostname: os.hostname(),
      platform: `${process.platform}-${process.arch}`,
      roots: ["/"],
      sandbox: this.options.localSandbox,
      connectedAt: this.startedAt,
      lastSeenAt: this.options.now().toISOString(),
      createdAt: null,
    };
  }
}

function offline(name: string, elsewhere?: string | null): AtriumError {
  if (elsewhere) {
    // DESIGN §10c: requests go to the node holding the link; this one raced a move of the machine.
    return new AtriumError("machine_offline", `machine ${name} is connected to another node of the cluster (${elsewhere}), not to this one; retry the request and it goes there`);
  }
  return new AtriumError("machine_offline", `machine ${name} is offline; start \`atrium machine connect\` there or pick another machine`);
}

/** The machine's own roots, narrowed to those the owner allowed when adding it (when any were given). */
function effectiveRoots(offered: string[], allowed: readonly string[]): string[] {
  if (allowed.length === 0) return offered;
  return offered.filter((root) => allowed.some((permitted) => isWithinLexically(root, permitted)));
}

function isDirectory(directory: string): boolean {
  try {
    return fs.statSync(directory).isDirectory();
  } catch {
    return false;
  }
}
