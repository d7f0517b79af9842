import { test as base, expect } from "@playwright/test";
import { AtriumApi } from "./api";
import { ArchivePage, ConversationPage, Sidebar, signIn } from "./pages";

interface Fixtures {
  api: AtriumApi;
  /** A page already signed in through the token URL. */
  app: { page: import("@playwright/test").Page; sidebar: Sidebar; archive: ArchivePage };
}

export const test = base.extend<Fixtures>({
  api: async ({ request }, use) => {
    await use(new AtriumApi(request));
  },
  app: async ({ page }, use) => {
    await signIn(page);
    await use({ page, sidebar: new Sidebar(page), archive: new ArchivePage(page) });
  },
});

/** A unique, readable marker so tests sharing one server never see each other's conversations. */
export function unique(label: string): string {
  return `${label} ${Math.random().toString(36).slice(2, 8)}`;
}

export { expect, ConversationPage };
