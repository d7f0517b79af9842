import type * as http from "node:http";
import type { Duplex } from "node:stream";

/**
 * Upgrades (machine links) wait, as every request does, until recovery is done; then until the
 * machine link's code is loaded, which happens at the first upgrade (or `install()`, before Next),
 * so a server no machine dials never loads it. Then they are handed to its routing.
 */
export function holdUpgrades() {
  type Links = { close(): void };
  let listening: http.Server | null = null;
  const held: Array<[http.IncomingMessage, Duplex, Buffer]> = [];
  let load: (() => Promise<Links>) | null = null;
  let installing: Promise<Links> | null = null;
  const hold = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node takes the server's error listener off an upgraded socket: a reset while it waits here
    // must end that socket, not the process.
    socket.on("error", () => socket.destroy());
    held.push([request, socket, head]);
    if (load) void install().catch(() => undefined);
  };
  const install = (): Promise<Links> => {
    if (!load) return Promise.resolve({ close() {} });
    installing ??= load().then(
      (links) => {
        listening!.off("upgrade", hold);
        for (const [request, socket, head] of held.splice(0)) if (!socket.destroyed) listening!.emit("upgrade", request, socket, head);
        return links;
      },
      (error: unknown) => {
        console.error("the machine link could not load", error);
        // The next upgrade tries again.
        installing = null;
        for (const [, socket] of held.splice(0)) socket.destroy();
        throw error;
      },
    );
    return installing;
  };
  return {
    attach(server: http.Server) {
      listening = server;
      server.on("upgrade", hold);
    },
    /** Recovery is done: upgrades held so far (and later ones) load the machine link's routing. */
    recovered(loader: () => Promise<Links>) {
      load = loader;
      if (held.length > 0) void install().catch(() => undefined);
    },
    install,
    async close() {
      const links = await installing?.catch(() => null);
      links?.close();
    },
  };
}
