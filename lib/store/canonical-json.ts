/**
 * JSON with object keys sorted at every level: two inputs that mean the same call give the
 * same text, whatever order their keys were written in. `undefined` reads as null.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value ?? null));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((entry) => sortKeys(entry ?? null));
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry !== undefined) sorted[key] = sortKeys(entry);
  }
  return sorted;
}
