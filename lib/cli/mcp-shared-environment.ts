import { INHERITED_VARIABLES } from "../tools/mcp-environment";
import { UsageError } from "./cli-context";

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What the MCP servers the gateway starts on this machine may read of its environment: the
 * allowlist every tool process gets, plus the variables the machine's owner names with
 * `--mcp-env`. A gateway's config can name any variable in `${NAME}` or `envFrom`; only these
 * resolve, so a secret of the machine is handed out only when its owner said so.
 */
export function sharedMcpEnvironment(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): Record<string, string | undefined> {
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) throw new UsageError(`--mcp-env ${JSON.stringify(name)} is not an environment variable name`);
    if (name.startsWith("ATRIUM_")) throw new UsageError(`--mcp-env ${name}: Atrium's own variables are never handed to an MCP server`);
  }
  const shared: Record<string, string | undefined> = {};
  for (const name of [...INHERITED_VARIABLES, ...names]) {
    if (env[name] !== undefined) shared[name] = env[name];
  }
  return shared;
}
