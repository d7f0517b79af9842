import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

/**
 * Two network namespaces made for one test, joined by a veth pair on a private /30 that exists
 * only inside them: `gateway` is 10.231.<n>.1, `machine` 10.231.<n>.2. The host's own network is
 * never touched; deleting the namespaces removes the pair.
 */
export interface NamespacePair {
  gateway: string;
  machine: string;
  gatewayAddress: string;
  /** The veth end in the machine's namespace: setting it down unplugs the machine. */
  machineLink: string;
  exec(namespace: string): string[];
  remove(): void;
}

/**
 * Whether this process can make namespaces and a veth pair between them (root with `ip`, and the
 * capabilities for both: a container's root often lacks them); tests that need them are skipped
 * otherwise. Tried for real, on a probe pair removed at once.
 */
export function canMakeNamespaces(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    makeNamespacePair("probe").remove();
    return true;
  } catch {
    return false;
  }
}

export function makeNamespacePair(purpose = ""): NamespacePair {
  const tag = `at${process.pid % 100_000}${purpose.slice(0, 1)}`;
  const subnet = 1 + (process.pid % 250);
  const [gateway, machine, gatewayLink, machineLink] = [`${tag}g`, `${tag}m`, `${tag}x`, `${tag}y`];
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });
  const pair: NamespacePair = {
    gateway,
    machine,
    gatewayAddress: `10.231.${subnet}.1`,
    machineLink,
    exec: (namespace) => ["ip", "netns", "exec", namespace],
    remove() {
      for (const namespace of [gateway, machine]) {
        try {
          ip("netns", "del", namespace);
        } catch {
          // Already gone: a failed setup removes what it made.
        }
      }
    },
  };
  try {
    ip("netns", "add", gateway);
    ip("netns", "add", machine);
    ip("link", "add", gatewayLink, "netns", gateway, "type", "veth", "peer", "name", machineLink, "netns", machine);
    ip("-n", gateway, "addr", "add", `${pair.gatewayAddress}/30`, "dev", gatewayLink);
    ip("-n", machine, "addr", "add", `10.231.${subnet}.2/30`, "dev", machineLink);
    for (const [namespace, link] of [[gateway, gatewayLink], [machine, machineLink]]) {
      ip("-n", namespace, "link", "set", "lo", "up");
      ip("-n", namespace, "link", "set", link, "up");
    }
  } catch (error) {
    pair.remove();
    throw error;
  }
  return pair;
}

/**
 * A way in from the test's own namespace to a port inside another: a forwarder in that namespace
 * listens on a Unix socket (the filesystem is shared) and a local TCP port here feeds it.
 * Resolves with the local port.
 */
export async function bridgeInto(pair: NamespacePair, namespace: string, port: number, directory: string): Promise<{ port: number; close(): void }> {
  const socketPath = path.join(directory, `bridge-${namespace}.sock`);
  const forwarder =
    'const net=require("net");const [sock,port]=process.argv.slice(1);' +
    'net.createServer((c)=>{const u=net.connect(+port,"127.0.0.1");c.pipe(u).pipe(c);c.on("error",()=>u.destroy());u.on("error",()=>c.destroy());}).listen(sock,()=>console.log("bridging"));';
  const child: ChildProcess = spawn(pair.exec(namespace)[0], [...pair.exec(namespace).slice(1), process.execPath, "-e", forwarder, socketPath, String(port)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the bridge into ${namespace} exited with ${code}`)));
  });
  const server = net.createServer((connection) => {
    const upstream = net.connect(socketPath);
    connection.pipe(upstream).pipe(connection);
    connection.on("error", () => upstream.destroy());
    upstream.on("error", () => connection.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    close() {
      server.close();
      child.kill();
      fs.rmSync(socketPath, { force: true });
    },
  };
}
