import { json, noContent } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { sessionIdFrom } from "@/lib/auth/session";
import { getSessionStore } from "@/lib/engine/runtime-registry";

export const dynamic = "force-dynamic";

/** The browser sessions (DESIGN §10): browser, created, last seen; `current` is the asking one. */
export const GET = apiRoute(async ({ request }) =>
  json({ sessions: await getSessionStore().list(sessionIdFrom({ cookie: request.headers.get("cookie") })) }),
);

/** "Sign out everywhere": every session ends, this one included. */
export const DELETE = apiRoute(async () => {
  await getSessionStore().deleteAll();
  return noContent();
});
