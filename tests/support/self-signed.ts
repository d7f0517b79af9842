import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Whether `openssl` is on this machine (the TLS tests make their certificate with it). */
export function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A self-signed certificate for 127.0.0.1, valid a day, written into `directory`. */
export function selfSignedCertificate(directory: string): { key: Buffer; cert: Buffer; certFile: string } {
  const keyFile = path.join(directory, "key.pem");
  const certFile = path.join(directory, "cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
    { stdio: "ignore" },
  );
  return { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), certFile };
}
