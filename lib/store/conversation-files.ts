import fs from "node:fs";
import path from "node:path";
import { readArtifactFile, writeArtifactFile, type ArtifactPage } from "./artifact-pages";
import type { DataPaths } from "./paths";
import type { AttachmentRef } from "./records";
import { pathInside } from "./safe-path";
import { attachmentPath, checkUploads, claimUploads, removeStaleUploads, returnUpload, saveUpload } from "./uploads";

/** Uploads claimed by a message: final once the message is recorded, given back if it is not. */
export interface ClaimedAttachments {
  attachments: AttachmentRef[];
  /** The message naming them is recorded: the claim is final. */
  forget(): Promise<void>;
  /** The message was not recorded: the uploads go back, so a retry may claim them again. */
  giveBack(): Promise<void>;
}

/** An attachment's bytes as the GET route sends them: whole, or a stream read part by part. */
export interface AttachmentContent {
  bytes: number;
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
}

/**
 * A conversation's files (DESIGN §2, §10c): uploads not yet claimed, the attachments a message
 * claimed, the artifacts of large tool outputs. Two backends: the files under ATRIUM_HOME
 * (LocalFiles, a single server) and the database's blobs on a node of a cluster (BlobFiles), so
 * nothing of a conversation lives on a node's disk. An upload belongs to no conversation yet and
 * any node may write it; a conversation's attachments and artifacts are written by its owner only.
 */
export interface ConversationFiles {
  saveUpload(id: string, name: string, declaredType: string, data: Buffer, now: Date): Promise<AttachmentRef>;
  /** Every named upload is there (not_found otherwise), before anything is written for the message. */
  checkUploads(ids: readonly string[]): Promise<void>;
  /**
   * Moves named uploads under a conversation: an existing one by its owner, or (`newConversation`)
   * one being created, whose id no other node knows yet.
   */
  claimUploads(conversationId: string, ids: readonly string[], options?: { newConversation?: boolean }): Promise<ClaimedAttachments>;
  /** A conversation's attachments back to the uploads (a creation undone). */
  returnAttachments(conversationId: string, attachments: readonly AttachmentRef[], now: Date): Promise<void>;
  openAttachment(conversationId: string, attachment: AttachmentRef): Promise<AttachmentContent | null>;
  /** Before the model input is built: the attachments it will read synchronously are at hand. */
  prepareAttachments(conversationId: string, attachments: readonly AttachmentRef[]): Promise<void>;
  attachmentBytes(conversationId: string, attachment: AttachmentRef): Buffer | null;
  writeArtifact(conversationId: string, artifactId: string, text: string): Promise<void>;
  readArtifactPage(conversationId: string, artifactId: string, page: number): Promise<ArtifactPage | null>;
  /** Fork: files of one conversation (paths as in its directory, e.g. "artifacts/<id>") copied to a new one. */
  copyFiles(fromId: string, toId: string, paths: readonly string[]): Promise<void>;
  /** A deleted conversation's files go (the files backend removes its directory with its records). */
  removeConversation(conversationId: string): Promise<void>;
  removeStaleUploads(now: Date): Promise<number>;
}

/** The files backend: $ATRIUM_HOME/uploads and conversations/<id>/{attachments,artifacts}, as a single server always kept them. */
export class LocalFiles implements ConversationFiles {
  constructor(private readonly paths: DataPaths) {}

  async saveUpload(id: string, name: string, declaredType: string, data: Buffer, now: Date): Promise<AttachmentRef> {
    return saveUpload(this.paths, id, name, declaredType, data, now);
  }

  async checkUploads(ids: readonly string[]): Promise<void> {
    checkUploads(this.paths, ids);
  }

  async claimUploads(conversationId: string, ids: readonly string[]): Promise<ClaimedAttachments> {
    const claimed = claimUploads(this.paths, conversationId, ids);
    return {
      attachments: claimed.map((upload) => upload.attachment),
      forget: async () => claimed.forEach((upload) => upload.forget()),
      giveBack: async () => claimed.forEach((upload) => returnUpload(this.paths, upload)),
    };
  }

  async returnAttachments(conversationId: string, attachments: readonly AttachmentRef[], now: Date): Promise<void> {
    for (const attachment of attachments) {
      const from = attachmentPath(this.paths, conversationId, attachment);
      if (fs.existsSync(from)) saveUpload(this.paths, attachment.id, attachment.name, attachment.mediaType, fs.readFileSync(from), now);
    }
  }

  async openAttachment(conversationId: string, attachment: AttachmentRef): Promise<AttachmentContent | null> {
    const data = this.attachmentBytes(conversationId, attachment);
    return data ? { bytes: data.length, body: new Uint8Array(data) } : null;
  }

  async prepareAttachments(): Promise<void> {}

  attachmentBytes(conversationId: string, attachment: AttachmentRef): Buffer | null {
    const file = attachmentPath(this.paths, conversationId, attachment);
    try {
      return fs.readFileSync(file);
    } catch {
      return null;
    }
  }

  async writeArtifact(conversationId: string, artifactId: string, text: string): Promise<void> {
    writeArtifactFile(this.paths.artifacts(conversationId), artifactId, text);
  }

  async readArtifactPage(conversationId: string, artifactId: string, page: number): Promise<ArtifactPage | null> {
    return readArtifactFile(this.paths.artifacts(conversationId), artifactId, page);
  }

  async copyFiles(fromId: string, toId: string, paths: readonly string[]): Promise<void> {
    for (const relative of paths) {
      const from = pathInside(this.paths.conversation(fromId), relative);
      const to = pathInside(this.paths.conversation(toId), relative);
      if (!fs.existsSync(from)) continue;
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      fs.copyFileSync(from, to);
      fs.chmodSync(to, 0o600);
    }
  }

  async removeConversation(conversationId: string): Promise<void> {
    fs.rmSync(this.paths.conversation(conversationId), { recursive: true, force: true });
  }

  async removeStaleUploads(now: Date): Promise<number> {
    return removeStaleUploads(this.paths, now);
  }
}
