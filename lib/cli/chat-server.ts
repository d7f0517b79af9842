import os from "node:os";
import { readToken } from "../auth/token";
import { isAlive, readLock } from "../store/lock";
import { dataPaths } from "../store/paths";
import { UsageError, type CliContext } from "./cli-context";

/** Where the chat client talks to: the server's base URL and the access token. */
export interface ChatServer {
  url: string;
  token: string;
}

/**
 * Finds the running server: `--url` when given, else the address the server wrote into
 * runtime.lock. Called again on every reconnect, since a restarted server may listen elsewhere.
 */
export function findChatServer(context: CliContext, urlOption: string | undefined): ChatServer {
  const url = urlOption === undefined ? urlFromLock(context.home) : parseUrlOption(urlOption);
  const token = readToken(dataPaths(context.home).token, context.env);
  if (!token) {
    throw new Error(`No access token: set ATRIUM_TOKEN or run "atrium token" (looked in ${dataPaths(context.home).token}).`);
  }
  return { url, token };
}

function urlFromLock(home: string): string {
  const lockPath = dataPaths(home).lock;
  const holder = readLock(lockPath);
  if (!holder) {
    throw new Error(`No Atrium server is running on ${home} (no readable ${lockPath}). Start one with "atrium serve", or pass --url.`);
  }
  if (holder.hostname === os.hostname() && !isAlive(holder.pid)) {
    throw new Error(`No Atrium server is running on ${home} (runtime.lock names pid ${holder.pid}, which has exited).`);
  }
  if (!holder.port) {
    throw new Error(`runtime.lock (pid ${holder.pid}) names no listening port; the holder may not be a server. Pass --url.`);
  }
  return `http://${connectHost(holder.bindHost)}:${holder.port}`;
}

/** A wildcard bind address is reached on loopback; an IPv6 literal needs brackets in a URL. */
function connectHost(bindHost: string | null): string {
  if (bindHost === null || bindHost === "" || bindHost === "0.0.0.0") return "127.0.0.1";
  if (bindHost === "::") return "[::1]";
  return bindHost.includes(":") ? `[${bindHost}]` : bindHost;
}

function parseUrlOption(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url "${value}" is not a URL (e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--url must be http:// or https://, not ${url.protocol}`);
  return url.origin;
}
