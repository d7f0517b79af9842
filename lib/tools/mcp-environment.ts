import type { HttpServerConfig, StdioServerConfig } from "../config/mcp-servers-schema";

/** Names a server process inherits from Atrium's environment, as for tool processes (DESIGN §5). */
export const INHERITED_VARIABLES = ["PATH", "HOME", "LANG", "TERM", "TMPDIR", "USER", "SHELL", "TZ"];

export class MissingVariableError extends Error {
  readonly code = "mcp_missing_variable";
}

export class ForbiddenVariableError extends Error {
  readonly code = "mcp_forbidden_variable";
}

/** A stdio server's environment: the allowlist, the literal `env`, and the secrets `envFrom` names. */
export function stdioEnvironment(config: Pick<StdioServerConfig, "env" | "envFrom">, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = env[name];
    if (value !== undefined) result[name] = value;
  }
  for (const [name, value] of Object.entries(config.env)) result[name] = expand(value, env, `env.${name}`);
  for (const [name, source] of Object.entries(config.envFrom)) result[name] = required(env, source, `envFrom.${name}`);
  return result;
}

/** An HTTP server's headers: the literal ones, and the secrets `headersEnv` names. */
export function httpHeaders(config: HttpServerConfig, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(config.headers)) headers[header] = expand(value, env, `headers.${header}`);
  for (const [header, source] of Object.entries(config.headersEnv)) headers[header] = required(env, source, `headersEnv.${header}`);
  return headers;
}

/** `${NAME}` in a value is read from Atrium's environment, as Claude Code's .mcp.json does, so the file names the secret instead of holding it. */
function expand(value: string, env: Readonly<Record<string, string | undefined>>, field: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => required(env, name, field));
}

function required(env: Readonly<Record<string, string | undefined>>, name: string, field: string): string {
  // The config schema refuses these too; this holds for a config built in code.
  if (name.startsWith("ATRIUM_")) throw new ForbiddenVariableError(`${field}: ${name} is Atrium's own and is never handed to an MCP server`);
  const value = env[name];
  if (value === undefined || value === "") throw new MissingVariableError(`${field}: the environment variable ${name} is not set`);
  return value;
}
