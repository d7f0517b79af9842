import { editFileTool } from "./edit-file";
import { listDirTool } from "./list-dir";
import { readFileTool } from "./read-file";
import { shellTool } from "./shell";
import type { AnyToolDefinition } from "./tool";
import { writeFileTool } from "./write-file";

/** The tools the turn engine executes itself, in the order the model sees them. */
export const builtinFileAndShellTools: readonly AnyToolDefinition[] = [
  shellTool,
  readFileTool,
  listDirTool,
  writeFileTool,
  editFileTool,
];
