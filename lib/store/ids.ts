import { monotonicFactory } from "ulid";
import { z } from "zod";
import { badRequest } from "../errors";

/** Crockford base32, the ULID alphabet: 26 characters, no I, L, O or U. */
const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const idSchema = z.string().regex(ULID_PATTERN, "must be a ULID");

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
  const next = monotonicFactory();
  return () => next(now());
}
