import fs from "node:fs";
import inspector from "node:inspector";
import { findSourceMap, type SourceMapping } from "node:module";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..");

function post<T>(session: inspector.Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))),
  );
}

/**
 * Samples the CPU while `work` runs (the same profile `node --cpu-prof` writes, limited to
 * the code under study), and saves it as a .cpuprofile for DevTools when given a path.
 */
export async function profileCpu<T>(work: () => T | Promise<T>, savePath: string | null): Promise<{ result: T; profile: CpuProfile }> {
  const session = new inspector.Session();
  session.connect();
  try {
    await post(session, "Profiler.enable");
    await post(session, "Profiler.setSamplingInterval", { interval: 500 });
    await post(session, "Profiler.start");
    const result = await work();
    const { profile } = await post<{ profile: CpuProfile }>(session, "Profiler.stop");
    if (savePath) fs.writeFileSync(savePath, JSON.stringify(profile));
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

/**
 * file:line in the TypeScript source. tsx may hand V8 whitespace-minified code, so positions go
 * through the source maps it registers; this must run in the process that loaded the modules.
 */
function location(frame: ProfileNode["callFrame"]): string {
  if (!frame.url) return "(native)";
  let url = frame.url;
  let line = frame.lineNumber;
  // Packages keep their built paths: their maps point at sources that name no package.
  // findEntry answers {} where no mapping covers the position.
  const entry: Partial<SourceMapping> | undefined = isProjectCode(url)
    ? findSourceMap(url)?.findEntry(frame.lineNumber, frame.columnNumber)
    : undefined;
  const mapped = entry?.originalSource !== undefined && entry.originalLine !== undefined;
  if (mapped) {
    url = entry.originalSource!;
    line = entry.originalLine!;
  }
  const file = url.startsWith("file://") ? new URL(url).pathname : url;
  const relative = file.startsWith(PROJECT_ROOT) ? path.relative(PROJECT_ROOT, file) : file;
  // Project code profiled in another process (a server under --cpu-prof) has no source map
  // here, and tsx's line numbers are those of minified code: the file alone is the truth.
  if (isProjectCode(frame.url) && !mapped) return relative;
  return `${relative}:${line + 1}`;
}

function areaOf(url: string): string {
  if (url === "") return "(native, no script caller)";
  const packageMatch = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (packageMatch) return packageMatch[1].startsWith("@ai-sdk/") || packageMatch[1] === "ai" ? "AI SDK (ai, @ai-sdk/*)" : packageMatch[1];
  if (url.startsWith("node:internal/webstreams")) return "node web streams";
  // Node's own fetch (undici) parses HTTP responses with llhttp compiled to wasm.
  if (url.startsWith("wasm://")) return "wasm (undici's llhttp: fetch responses)";
  // AsyncLocalStorage on node 20 runs a hook on every promise made while any store is active.
  if (url === "node:async_hooks" || url.startsWith("node:internal/async_hooks") || url === "node:internal/async_local_storage") {
    return "node async_hooks (AsyncLocalStorage)";
  }
  if (/^node:(_http|net|stream|internal\/(streams|stream_base_commons|http))/.test(url)) return "node http/net/streams";
  if (url.startsWith("node:")) return "node, other";
  if (isProjectCode(url)) {
    const relative = path.relative(PROJECT_ROOT, new URL(url).pathname).split(path.sep);
    return relative.slice(0, relative[0] === "lib" ? 2 : 1).join("/");
  }
  return url;
}

function isProjectCode(url: string): boolean {
  return url.startsWith(`file://${PROJECT_ROOT}/`) && !url.includes("/node_modules/");
}

function label(frame: ProfileNode["callFrame"]): string {
  return `${frame.functionName || "(anonymous)"} ${location(frame)}`;
}

/**
 * The costliest functions of a profile: self time (where the CPU actually was) and, for
 * project code, inclusive time (self plus callees, recursion counted once).
 */
export function summarizeProfile(profile: CpuProfile, top = 12): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  /** The nearest frame with a script behind it: native calls are charged to whoever made them. */
  const scriptFrame = (id: number, keep: (url: string) => boolean) => {
    let current: number | undefined = id;
    while (current !== undefined && !keep(byId.get(current)!.callFrame.url)) current = parents.get(current);
    return current === undefined ? undefined : byId.get(current)!.callFrame;
  };
  // The inspector's own message handling (Profiler.stop building the profile) is not the code under study.
  const profilerOwn = (id: number) =>
    byId.get(id)!.callFrame.functionName === "dispatch" && scriptFrame(id, (url) => url !== "")?.url === "node:inspector";

  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    if (!profilerOwn(id)) selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const totalMs = [...selfMs.values()].reduce((sum, value) => sum + value, 0);

  const selfByLabel = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const nativeByCaller = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    add(selfByLabel, label(frame), ms);
    const special = !frame.url && frame.functionName.startsWith("(");
    add(selfByArea, special ? frame.functionName : areaOf(scriptFrame(id, (url) => url !== "")?.url ?? ""), ms);
    if (frame.url || special) continue;
    const caller = scriptFrame(id, isProjectCode);
    add(nativeByCaller, `${frame.functionName} ← ${caller ? label(caller) : "?"}`, ms);
  }

  const inclusiveByLabel = new Map<string, number>();
  const visit = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    const key = label(node.callFrame);
    const entered = !onStack.has(key);
    if (entered) onStack.add(key);
    let inclusive = selfMs.get(id) ?? 0;
    for (const child of node.children ?? []) inclusive += visit(child, onStack);
    if (entered) {
      onStack.delete(key);
      inclusiveByLabel.set(key, (inclusiveByLabel.get(key) ?? 0) + inclusive);
    }
    return inclusive;
  };
  visit(profile.nodes[0].id, new Set());

  const percent = (ms: number) => `${((ms / totalMs) * 100).toFixed(1).padStart(5)}%`;
  const rows = (entries: Map<string, number>, count: number, keep: (key: string) => boolean = () => true) =>
    [...entries]
      .filter(([key]) => keep(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, ms]) => `${percent(ms)} ${ms.toFixed(0).padStart(6)} ms  ${key}`);
  return [
    `profile: ${totalMs.toFixed(0)} ms sampled`,
    "self time by function:",
    ...rows(selfByLabel, top).map((row) => `  ${row}`),
    "self time by area (native calls charged to their caller's area):",
    ...rows(selfByArea, 10).map((row) => `  ${row}`),
    "native time (SQLite, fs) by the project function that called it:",
    ...rows(nativeByCaller, top).map((row) => `  ${row}`),
    "inclusive time, project code:",
    ...rows(inclusiveByLabel, top, (key) => / lib\//.test(key)).map((row) => `  ${row}`),
  ];
}

/**
 * Share of the sampled time each area is anywhere on the stack (its code, or code it called):
 * the flame graph's widest bands. A sample counts once per area however deep it recurs.
 * "node, other" is left out: the tick and microtask queues sit under nearly every stack.
 */
export function inclusiveByArea(profile: CpuProfile, top = 12): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const areasOf = new Map<number, string[]>();
  const stackAreas = (id: number): string[] => {
    let areas = areasOf.get(id);
    if (areas) return areas;
    const frame = byId.get(id)!.callFrame;
    const seen = new Set<string>();
    if (!frame.url && frame.functionName.startsWith("(") && frame.functionName !== "(root)") seen.add(frame.functionName);
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const url = byId.get(current)!.callFrame.url;
      if (url) seen.add(areaOf(url));
    }
    areas = [...seen];
    areasOf.set(id, areas);
    return areas;
  };
  const byArea = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    totalMs += ms;
    for (const area of stackAreas(id)) byArea.set(area, (byArea.get(area) ?? 0) + ms);
  });
  byArea.delete("node, other");
  return [...byArea]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([area, ms]) => `  ${((ms / totalMs) * 100).toFixed(1).padStart(5)}% ${ms.toFixed(0).padStart(6)} ms  ${area}`);
}
