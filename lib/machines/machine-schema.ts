import { z } from "zod";

/** The built-in machine: the gateway's own host (DESIGN §10b). */
export const LOCAL_MACHINE_ID = "local";

/** A machine as the API shows it (DESIGN §10b). */
export const machineSchema = z.object({
  id: z.string(),
  name: z.string(),
  builtin: z.boolean(),
  status: z.enum(["online", "offline"]),
  hostname: z.string().nullable(),
  platform: z.string().nullable(),
  roots: z.array(z.string()),
  sandbox: z.string(),
  connectedAt: z.string().nullable(),
  lastSeenAt: z.string().nullable(),
  createdAt: z.string().nullable(),
});
export type Machine = z.infer<typeof machineSchema>;

/** A name people type and read: letters, digits, dot, dash, underscore; `local` is the built-in one's. */
export const machineNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "use letters, digits, '.', '-' and '_' (starting with a letter or digit)");
