import { describe, expect, it } from "vitest";
import { summarizeBrowser } from "@/lib/auth/browser-summary";

describe("summarizeBrowser", () => {
  it("names the browser and the system, never the raw user agent", () => {
    expect(summarizeBrowser("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36")).toBe("Headless Chrome on Linux");
    expect(summarizeBrowser("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15")).toBe("Safari on macOS");
    expect(summarizeBrowser("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0")).toBe("Firefox on Windows");
    expect(summarizeBrowser("curl/7.88.1")).toBe("curl");
    expect(summarizeBrowser("")).toBe("Unknown browser");
  });
});
