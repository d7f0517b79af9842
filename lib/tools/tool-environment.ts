/** What every tool process may see of the server's environment (DESIGN §5, §10). */
const ALLOWED_NAMES = ["PATH", "HOME", "LANG", "TERM", "TMPDIR", "USER", "SHELL", "TZ"] as const;

/**
 * A clean environment for the shell and any other process a tool starts: the allowlist
 * plus the names the owner lists in config `shell.env`. Never `ATRIUM_*` (the access token
 * would let a command approve itself); provider keys and other secrets only when listed by name.
 */
export function toolEnvironment(extraNames: readonly string[] = [], source: Record<string, string | undefined> = process.env): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of ALLOWED_NAMES) {
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  for (const name of extraNames) {
    if (name.startsWith("ATRIUM_")) continue;
    const value = source[name];
    if (value !== undefined) environment[name] = value;
  }
  environment.ATRIUM = "1";
  return environment;
}

/** Names a config may list in `shell.env`: a plain variable name; ATRIUM_* stays out whatever the config says. */
export function isListableEnvName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !name.startsWith("ATRIUM_");
}
