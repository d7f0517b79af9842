import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMachineProcess } from "../../support/machine-process";
import { hasOpenssl, selfSignedCertificate } from "../../support/self-signed";
import { addMachine, createOn, endedTurn, items, machineStatus, startGateway, toolCalls, type Scene } from "./machine-fixture";

/**
 * DESIGN §10b: "TLS when the URL is https". The gateway sits behind a TLS terminator (as behind a
 * reverse proxy) that speaks only TLS, with a certificate made for this test: a machine dialling
 * the https URL links only over TLS, and only to a certificate it trusts.
 */
let scene: Scene;
let terminator: tls.Server;
let httpsUrl: string;
let certificate: string;

beforeAll(async () => {
  if (!hasOpenssl()) return;
  scene = await startGateway();
  const made = selfSignedCertificate(scene.temp);
  certificate = made.certFile;
  const gateway = new URL(scene.server.url);
  terminator = tls.createServer({ key: made.key, cert: made.cert }, (secure) => {
    const plain = net.connect(Number(gateway.port), gateway.hostname);
    secure.pipe(plain).pipe(secure);
    secure.on("error", () => plain.destroy());
    plain.on("error", () => secure.destroy());
  });
  // A client that does not trust the certificate ends the handshake; the server side sees a reset.
  terminator.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve) => terminator.listen(0, "127.0.0.1", resolve));
  httpsUrl = `https://127.0.0.1:${(terminator.address() as net.AddressInfo).port}`;
}, 90_000);

afterAll(async () => {
  await new Promise((resolve) => (terminator ? terminator.close(resolve) : resolve(undefined)));
  await scene?.cleanup();
});

describe.skipIf(!hasOpenssl())("a machine linking to an https gateway (DESIGN §10b)", () => {
  it("links over TLS (wss) to a certificate it trusts and runs a shell call through it", async () => {
    const { machine, token } = await addMachine(scene.server, "secure");
    const root = fs.mkdtempSync(path.join(scene.temp, "secure-"));
    const box = startMachineProcess({ url: httpsUrl, token, home: path.join(root, "home"), roots: [root], env: { NODE_EXTRA_CA_CERTS: certificate } });
    try {
      await box.waitForOutput(new RegExp(`connected to ${httpsUrl.replace(/\./g, "\\.")} as secure`));
      await machineStatus(scene.server, machine.id, "online");
      const created = await (await createOn(scene.server, { text: '[[tool:shell {"command":"echo over-tls"}]]', machine: machine.id })).json();
      expect((await endedTurn(scene.server, created.turn.id)).status).toBe("completed");
      expect(toolCalls(await items(scene.server, created.conversation.id))[0].output).toBe("over-tls\n");
    } finally {
      await box.stop();
    }
  });

  it("does not link to a certificate it does not trust: it says why and keeps dialling, and the gateway never hears from it", async () => {
    const { machine, token } = await addMachine(scene.server, "wary");
    const root = fs.mkdtempSync(path.join(scene.temp, "wary-"));
    const box = startMachineProcess({ url: httpsUrl, token, home: path.join(root, "home"), roots: [root] });
    try {
      await box.waitForOutput(/cannot reach https:\/\/127\.0\.0\.1:\d+: self[- ]signed certificate/);
      await box.waitForOutput(/dialling again/);
      const { machines } = await (await scene.server.api("/api/machines")).json();
      expect(machines.find((candidate: { id: string }) => candidate.id === machine.id)).toMatchObject({ status: "offline", lastSeenAt: null });
    } finally {
      await box.stop();
    }
  });
});
