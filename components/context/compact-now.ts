import { toast } from "sonner";
import { ApiError, apiFetch, errorMessage } from "@/components/shared/api-client";

/**
 * POST …/compact with one wording per outcome, the same from the context ring and from
 * `/compact`: done, not done (with the server's reason), not now (something runs), failed.
 */
export async function compactNow(conversationId: string): Promise<void> {
  try {
    const body = await apiFetch<{ compacted: boolean; itemId?: string; reason?: string }>(`/api/conversations/${conversationId}/compact`, {
      method: "POST",
      body: {},
    });
    if (body.compacted) toast.success("Context compacted: older history is now summarized");
    else toast.info(`Not compacted: ${body.reason ?? "nothing is old enough to summarize yet"}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) toast.error("Not compacted: wait until the agent is idle, then compact");
    else toast.error(`Not compacted: ${errorMessage(error)}`);
  }
}
