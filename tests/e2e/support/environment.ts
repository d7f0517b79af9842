/** Fixed for the test server started by playwright.config.ts. */
export const E2E_PORT = Number(process.env.ATRIUM_E2E_PORT ?? 3107);
export const E2E_TOKEN = "atrium-e2e-token-0123456789abcdefgh";
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;

/** The two windows the UI is checked at: a desktop and a phone (390 px wide, as issue 26 measured). */
export const DESKTOP_VIEWPORT = { width: 1280, height: 800 } as const;
export const PHONE_VIEWPORT = { width: 390, height: 844 } as const;
export const DEVICES = [
  ["desktop", DESKTOP_VIEWPORT],
  ["phone", PHONE_VIEWPORT],
] as const;
