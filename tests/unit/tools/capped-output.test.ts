import { describe, expect, it } from "vitest";
import { CappedOutput } from "@/lib/tools/capped-output";

describe("CappedOutput", () => {
  it("keeps everything under the limit", () => {
    const output = new CappedOutput(10);
    output.append("abcde");
    output.append("fghij");

    expect(output.toString()).toBe("abcdefghij");
  });

  it("keeps the beginning and the end past the limit, marking what it dropped", () => {
    const output = new CappedOutput(10);
    for (const delta of ["abc", "defgh", "ijklmnopqrstuvwxyz", "0123"]) output.append(delta);

    expect(output.toString()).toBe("abcde\n[… 20 characters of output omitted …]\nz0123");
  });
});
