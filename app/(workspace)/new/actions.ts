"use server";

import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { FolderCheck } from "@/components/new-chat/project-picker";
import { signedInRuntime } from "../workspace-data";


const folderArgument = z.string().max(4096);

/**
 * The new-chat picker checks a typed folder as it is typed: it must be an absolute path to a
 * directory on this machine (the built-in machine "local"). Anyone can POST to an action, so it
 * checks the session itself; it says only whether the folder is there, never what is in it.
 */
export async function checkProjectFolder(folder: string): Promise<FolderCheck> {
  await signedInRuntime();
  const parsed = folderArgument.safeParse(folder);
  if (!parsed.success) return { ok: false, message: "That is not a folder path." };
  const value = parsed.data.trim();
  if (!path.isAbsolute(value)) return { ok: false, message: "Give the full path, starting with /." };
  try {
    if (!fs.statSync(value).isDirectory()) return { ok: false, message: "That is a file, not a folder." };
  } catch {
    return { ok: false, message: "No folder at that path on this machine." };
  }
  return { ok: true, path: path.resolve(value) };
}
