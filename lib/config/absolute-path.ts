import path from "node:path";
import { z } from "zod";

export const absolutePathSchema = z.string().refine((value) => path.isAbsolute(value), "must be an absolute path");
