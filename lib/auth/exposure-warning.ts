const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);

/** DESIGN §10: listening beyond loopback is allowed but said out loud, with the safe way to do it. */
export function exposureWarning(host: string): string | null {
  if (LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host)) return null;
  return `Warning: Atrium is listening on ${host}, beyond this machine's loopback. Anyone who can reach it and learns the token can run commands here. Prefer keeping it on 127.0.0.1 behind a TLS reverse proxy (see README, Security).`;
}
