import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { AtriumError, storageError } from "../errors";
import { assertId } from "./ids";
import { syncDirectory } from "./storage-fs";
import type { DataPaths } from "./paths";
import type { AttachmentRef } from "./records";
import { byteLength, MAX_FILE_NAME_BYTES, pathInside, safeFileName } from "./safe-path";

export const ATTACHMENT_BYTE_LIMIT = 20 * 1024 * 1024;
const UNUSED_UPLOAD_MS = 24 * 60 * 60 * 1000;

const EXTENSION_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".json": "application/json",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".log": "text/plain",
};

/** DESIGN §8: images, text, PDF and JSON. */
export function allowedMediaType(declared: string, name: string): string | null {
  const type = (declared.split(";")[0] ?? "").trim().toLowerCase();
  const fallback = EXTENSION_TYPES[path.extname(name).toLowerCase()];
  const candidate = type === "" || type === "application/octet-stream" ? fallback : type;
  if (!candidate) return null;
  if (/^image\/(png|jpeg|gif|webp)$/.test(candidate)) return candidate;
  if (candidate.startsWith("text/") || candidate === "application/json" || candidate === "application/pdf") return candidate;
  return null;
}

export { safeFileName };

const uploadSchema = z.object({
  id: z.string(),
  name: z.string(),
  mediaType: z.string(),
  bytes: z.number().int(),
  createdAt: z.string(),
});

/** The rules every upload meets, wherever it is kept (DESIGN §8): 20 MiB, the allowed types, a clean name. */
export function checkedUpload(id: string, name: string, declaredType: string, bytes: number): AttachmentRef {
  if (bytes > ATTACHMENT_BYTE_LIMIT) {
    throw new AtriumError("payload_too_large", `attachments are limited to ${ATTACHMENT_BYTE_LIMIT / 1024 / 1024} MiB (this one is ${bytes} bytes)`);
  }
  // The name on disk is `<id>-<name>`: the cleaned name leaves room for the prefix within NAME_MAX.
  const fileName = safeFileName(name, MAX_FILE_NAME_BYTES - byteLength(`${assertId(id, "attachment id")}-`));
  const mediaType = allowedMediaType(declaredType, fileName);
  if (!mediaType) {
    throw new AtriumError("unsupported_media_type", `${fileName}: only images (PNG, JPEG, GIF, WebP), text, PDF and JSON can be attached`);
  }
  return { id, name: fileName, mediaType, bytes };
}

/** Unused uploads older than this are removed (DESIGN §8: 24 hours). */
export const UNUSED_UPLOAD_HOURS = UNUSED_UPLOAD_MS / 3_600_000;

export const uploadNotFound = (id: string) =>
  new AtriumError("not_found", `attachment ${id} was not found (uploads are kept for 24 hours until a message uses them)`);

/** Held in $ATRIUM_HOME/uploads until a message names it. */
export function saveUpload(paths: DataPaths, id: string, name: string, declaredType: string, data: Buffer, now: Date): AttachmentRef {
  const attachment = checkedUpload(id, name, declaredType, data.length);
  const fileName = attachment.name;
  const dataPath = pathInside(paths.uploads, `${id}-${fileName}`);
  try {
    fs.mkdirSync(paths.uploads, { recursive: true, mode: 0o700 });
    fs.writeFileSync(dataPath, data, { mode: 0o600 });
    fs.writeFileSync(path.join(paths.uploads, `${id}.json`), JSON.stringify({ ...attachment, createdAt: now.toISOString() }), { mode: 0o600 });
  } catch (error) {
    // Without its sidecar an upload is never claimed nor cleaned up: it goes too.
    fs.rmSync(dataPath, { force: true });
    throw storageError(error, "the upload");
  }
  return attachment;
}

export interface ClaimedUpload {
  attachment: AttachmentRef;
  from: string;
  to: string;
  metaPath: string;
  meta: string;
  /** The claim is final: the upload's sidecar goes. */
  forget(): void;
}

function readUploadMeta(paths: DataPaths, id: string): { meta: z.infer<typeof uploadSchema>; metaPath: string; raw: string } {
  const metaPath = path.join(paths.uploads, `${id}.json`);
  try {
    const raw = fs.readFileSync(metaPath, "utf8");
    return { meta: uploadSchema.parse(JSON.parse(raw)), metaPath, raw };
  } catch {
    throw new AtriumError("not_found", `attachment ${id} was not found (uploads are kept for 24 hours until a message uses them)`);
  }
}

/** Checks that every named upload is there, before anything is written for the message that names them. */
export function checkUploads(paths: DataPaths, ids: readonly string[]): void {
  for (const raw of ids) {
    const id = assertId(raw, "attachment id");
    const { meta } = readUploadMeta(paths, id);
    if (!fs.existsSync(pathInside(paths.uploads, `${id}-${meta.name}`))) {
      throw new AtriumError("not_found", `attachment ${id} was not found (uploads are kept for 24 hours until a message uses them)`);
    }
  }
}

/** Moves one upload into `directory` (attachments/<id>-<name>), flushing the directory entry. */
export function claimUpload(paths: DataPaths, rawId: string, directory: string): ClaimedUpload {
  const id = assertId(rawId, "attachment id");
  const { meta, metaPath, raw } = readUploadMeta(paths, id);
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const fileName = `${id}-${meta.name}`;
  const from = pathInside(paths.uploads, fileName);
  const to = pathInside(directory, fileName);
  fs.renameSync(from, to);
  syncDirectory(directory);
  return {
    attachment: { id, name: meta.name, mediaType: meta.mediaType, bytes: meta.bytes },
    from,
    to,
    metaPath,
    meta: raw,
    forget: () => fs.rmSync(metaPath, { force: true }),
  };
}

/** Undoes a claim whose message was never recorded, so a retry can name the upload again. */
export function returnUpload(paths: DataPaths, claimed: ClaimedUpload): void {
  fs.mkdirSync(paths.uploads, { recursive: true });
  if (fs.existsSync(claimed.to)) fs.renameSync(claimed.to, claimed.from);
  if (!fs.existsSync(claimed.metaPath)) fs.writeFileSync(claimed.metaPath, claimed.meta);
}

/** Moves named uploads under the conversation (attachments/<id>-<name>) and returns their references. */
export function claimUploads(paths: DataPaths, conversationId: string, ids: readonly string[]): ClaimedUpload[] {
  checkUploads(paths, ids);
  const claimed: ClaimedUpload[] = [];
  try {
    for (const id of ids) claimed.push(claimUpload(paths, id, paths.attachments(conversationId)));
  } catch (error) {
    for (const done of claimed) returnUpload(paths, done);
    throw error;
  }
  return claimed;
}

/** An attachment's file name under attachments/ (`<id>-<name>`), its id checked and its name cleaned. */
export function attachmentFileName(attachment: { id: string; name: string }): string {
  return `${assertId(attachment.id, "attachment id")}-${safeFileName(attachment.name)}`;
}

export function attachmentPath(paths: DataPaths, conversationId: string, attachment: { id: string; name: string }): string {
  return pathInside(paths.attachments(conversationId), attachmentFileName(attachment));
}

/** Uploads no message claimed within 24 hours are removed. */
export function removeStaleUploads(paths: DataPaths, now: Date): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(paths.uploads);
  } catch {
    return 0;
  }
  for (const name of names.filter((candidate) => candidate.endsWith(".json"))) {
    try {
      const meta = uploadSchema.parse(JSON.parse(fs.readFileSync(path.join(paths.uploads, name), "utf8")));
      if (now.getTime() - Date.parse(meta.createdAt) < UNUSED_UPLOAD_MS) continue;
      fs.rmSync(pathInside(paths.uploads, `${assertId(meta.id)}-${meta.name}`), { force: true });
      fs.rmSync(path.join(paths.uploads, name), { force: true });
      removed += 1;
    } catch {
      // an unreadable sidecar is left for the owner to inspect
    }
  }
  return removed;
}
