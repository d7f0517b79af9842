import { z } from "zod";
import { ULID_PATTERN } from "./ids";

/** An id in a record or a request body. Its own file, so ids.ts (the CLI's start) does not load zod. */
export const idSchema = z.string().regex(ULID_PATTERN, "must be a ULID");
