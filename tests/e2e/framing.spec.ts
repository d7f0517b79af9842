import http from "node:http";
import type { AddressInfo } from "node:net";
import { E2E_BASE_URL } from "./support/environment";
import { expect, test } from "./support/fixtures";

/**
 * Clickjacking (issue 21, finding 2): a page on another port of 127.0.0.1 frames Atrium's
 * approvals list in a signed-in browser. SameSite ignores ports, so only the answer's own
 * headers (frame-ancestors 'none', X-Frame-Options: DENY) keep the frame from showing it.
 */
test("another origin cannot frame Atrium's pages, even signed in", async ({ app }) => {
  const attacker = http.createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(`<!doctype html><title>attacker</title><iframe name="victim" src="${E2E_BASE_URL}/approvals" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = attacker.address() as AddressInfo;
    const page = app.page;
    const answer = page.waitForResponse((response) => response.url() === `${E2E_BASE_URL}/approvals`);
    await page.goto(`http://127.0.0.1:${port}/`);
    // The framed request is made with the session cookie and answered; the browser refuses to show it.
    expect((await answer).headers()["x-frame-options"]).toBe("DENY");
    const frame = page.frame({ name: "victim" });
    expect(frame).not.toBeNull();
    await expect.poll(() => frame!.url(), { message: "the blocked frame is left on Chromium's error page" }).toMatch(/^chrome-error:/);
    await expect(frame!.getByRole("heading", { name: "Approvals" })).toHaveCount(0);
    await expect(frame!.getByRole("button", { name: "Approve" })).toHaveCount(0);
  } finally {
    await new Promise<void>((resolve) => attacker.close(() => resolve()));
  }
});
