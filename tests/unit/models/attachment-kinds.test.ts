import { describe, expect, it } from "vitest";
import { imagesTheModelCannotTake } from "@/components/attachments/image-model-warning";
import { acceptedAttachments } from "@/lib/models/attachment-kinds";

describe("which models take images", () => {
  it("defaults per provider, and the config entry's attachments win", () => {
    expect(acceptedAttachments({ provider: "openai" })).toEqual(["image", "pdf"]);
    expect(acceptedAttachments({ provider: "anthropic" })).toEqual(["image", "pdf"]);
    expect(acceptedAttachments({ provider: "openai-compatible" })).toEqual([]);
    expect(acceptedAttachments({ provider: "offline" })).toEqual([]);
    expect(acceptedAttachments({ provider: "openai-compatible", attachments: ["image"] })).toEqual(["image"]);
    expect(acceptedAttachments({ provider: "openai", attachments: [] })).toEqual([]);
  });

  it("names the waiting images a text-only model would not see", () => {
    const entry = (name: string, mediaType: string, status: "ready" | "failed" = "ready") => ({
      key: name,
      name,
      status,
      attachment: { id: name, name, mediaType, bytes: 1 },
      error: null,
      preview: null,
    });
    const tray = { items: [entry("a.png", "image/png"), entry("b.txt", "text/plain"), entry("c.jpg", "image/jpeg", "failed")] };
    expect(imagesTheModelCannotTake(tray, { attachments: [] })).toEqual(["a.png"]);
    expect(imagesTheModelCannotTake(tray, { attachments: ["image"] })).toEqual([]);
  });
});
