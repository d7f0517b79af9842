import { monotonicFactory } from "ulid";
import { badRequest } from "../errors";

/** Crockford base32, the ULID alphabet: 26 characters, no I, L, O or U. */
export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isId(value: unknown): value is string {
  return typeof value === "string" && ULID_PATTERN.test(value);
}

/** Every id taken from outside goes through here before it touches a path. */
export function assertId(value: unknown, what = "id"): string {
  if (!isId(value)) throw badRequest(`${what} is not a valid id`);
  return value;
}

export type IdGenerator = () => string;

export function createIdGenerator(now: () => number = Date.now): IdGenerator {
  const next = monotonicFactory(pooledRandom());
  return () => next(now());
}

/**
 * ulid's default source makes one crypto call with a fresh one-byte array per character;
 * the same crypto bytes drawn a pool at a time cost a fraction of that.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      crypto.getRandomValues(pool);
      next = 0;
    }
    return pool[next++] / 256;
  };
}
