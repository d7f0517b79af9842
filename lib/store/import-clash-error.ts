/** An import that would overwrite a different conversation: nothing was imported (the CLI exits 3). */
export class ImportClashError extends Error {
  readonly code = "import_clash";

  constructor(readonly clashes: Array<{ conversationId: string; reason: string }>) {
    super(
      `${clashes.map((clash) => `conversation ${clash.conversationId}: ${clash.reason}`).join("; ")}. ` +
        "Nothing was imported; import with --new-id to keep both.",
    );
    this.name = "ImportClashError";
  }
}
