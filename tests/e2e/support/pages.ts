import { expect, type Locator, type Page } from "@playwright/test";
import { E2E_TOKEN } from "./environment";

/** Page objects: every control is found by role and accessible name. */

/** Full page loads: controls respond only once React has hydrated the document. */
export async function hydrated(page: Page): Promise<void> {
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true", { timeout: 60_000 });
}

export async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await hydrated(page);
}

export async function reload(page: Page): Promise<void> {
  await page.reload();
  await hydrated(page);
}

export async function signIn(page: Page): Promise<void> {
  await page.goto(`/signin?token=${encodeURIComponent(E2E_TOKEN)}`);
  await expect(page).toHaveURL(/\/$/);
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "What should we work on?" })).toBeVisible();
}

export class Sidebar {
  constructor(private readonly page: Page) {}

  get conversations(): Locator {
    return this.page.getByRole("navigation", { name: "Conversations" });
  }

  conversation(title: string): Locator {
    return this.conversations.getByRole("link", { name: title, exact: true });
  }

  async newChat(): Promise<NewChatPage> {
    await this.page.getByRole("link", { name: "New chat" }).first().click();
    await expect(this.page).toHaveURL(/\/new$/);
    return new NewChatPage(this.page);
  }

  async signOut(): Promise<void> {
    await this.page.getByRole("button", { name: "Sign out" }).click();
    await expect(this.page).toHaveURL(/\/signin\?signedOut=1/);
  }

  async search(text: string): Promise<void> {
    await this.page.getByRole("searchbox", { name: "Search conversations" }).fill(text);
  }
}

export class NewChatPage {
  constructor(readonly page: Page) {}

  get composer(): Locator {
    return this.page.getByRole("textbox", { name: "Message" });
  }

  /** Sends the first message and waits for the new conversation's page. */
  async start(text: string): Promise<ConversationPage> {
    await this.composer.fill(text);
    await this.composer.press("Enter");
    await expect(this.page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
    const conversation = new ConversationPage(this.page);
    await conversation.expectLive();
    await expect(conversation.userMessages.first()).toBeVisible();
    return conversation;
  }
}

export class ConversationPage {
  constructor(readonly page: Page) {}

  static async open(page: Page, id: string): Promise<ConversationPage> {
    await visit(page, `/c/${id}`);
    const conversation = new ConversationPage(page);
    await conversation.expectLive();
    return conversation;
  }

  /** The conversation's event stream is open: what the page shows is current from here on. */
  async expectLive(): Promise<void> {
    await expect(this.history).toHaveAttribute("data-live", "true", { timeout: 30_000 });
  }

  async reload(): Promise<void> {
    await reload(this.page);
    await this.expectLive();
  }

  get id(): string {
    const match = /\/c\/([0-9A-Z]{26})/.exec(this.page.url());
    if (!match) throw new Error(`not on a conversation page: ${this.page.url()}`);
    return match[1];
  }

  get history(): Locator {
    return this.page.getByRole("log", { name: "Conversation history" });
  }

  get composer(): Locator {
    return this.page.getByRole("textbox", { name: "Message" });
  }

  get userMessages(): Locator {
    return this.history.locator('[data-item-kind="user_message"]');
  }

  /** The text of each of the owner's messages, without the controls around it. */
  async userMessageTexts(): Promise<string[]> {
    return (await this.userMessages.locator(".markdown").allInnerTexts()).map((text) => text.trim());
  }

  get assistantMessages(): Locator {
    return this.history.locator('[data-item-kind="assistant_message"]');
  }

  get lastReply(): Locator {
    return this.assistantMessages.last();
  }

  get waitingList(): Locator {
    return this.page.getByRole("region", { name: "Waiting messages" });
  }

  waitingMessage(text: string): Locator {
    return this.waitingList.getByRole("listitem").filter({ hasText: text });
  }

  get interruptButton(): Locator {
    return this.page.getByRole("button", { name: "Interrupt", exact: true });
  }

  get title(): Locator {
    return this.page.getByRole("banner").getByRole("heading", { level: 1 });
  }

  async send(text: string, mode?: "Steer" | "Queue" | "Jump"): Promise<void> {
    if (mode) await this.page.getByRole("radiogroup", { name: "While the turn runs" }).getByRole("radio", { name: mode, exact: true }).click();
    await this.composer.fill(text);
    await this.composer.press("Enter");
  }

  /** A turn is open when the Interrupt button shows. */
  async expectRunning(): Promise<void> {
    await expect(this.interruptButton).toBeVisible();
  }

  async expectIdle(): Promise<void> {
    await expect(this.interruptButton).toBeHidden({ timeout: 30_000 });
  }

  async openMenu(): Promise<Locator> {
    // A click while the previous menu is still closing lands on its way out and opens nothing.
    await expect(this.page.getByRole("menu")).toHaveCount(0);
    await this.page.getByRole("button", { name: "Conversation actions" }).click();
    const menu = this.page.getByRole("menu");
    await expect(menu).toBeVisible();
    return menu;
  }

  async menuAction(name: string | RegExp): Promise<void> {
    const menu = await this.openMenu();
    await menu.getByRole("menuitem", { name }).click();
  }
}

export class ArchivePage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await visit(this.page, "/archive");
    await expect(this.table).toBeVisible();
  }

  get table(): Locator {
    return this.page.getByRole("table", { name: "Archived conversations" });
  }

  row(title: string): Locator {
    return this.table.getByRole("row").filter({ has: this.page.getByRole("link", { name: title, exact: true }) });
  }

  async select(title: string): Promise<void> {
    await this.page.getByRole("checkbox", { name: `Select “${title}”` }).click();
  }

  get selectionToolbar(): Locator {
    return this.page.getByRole("toolbar", { name: "Selected conversations" });
  }
}
