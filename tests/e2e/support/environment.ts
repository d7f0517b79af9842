/** Fixed for the test server started by playwright.config.ts. */
export const E2E_PORT = Number(process.env.ATRIUM_E2E_PORT ?? 3107);
export const E2E_TOKEN = "atrium-e2e-token-0123456789abcdefgh";
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
