"use client";

import { toast } from "sonner";
import { ApiError, apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { compactNow } from "@/components/context/compact-now";
import type { SlashCommandName } from "./slash-commands";

/** A 404 from a route this server lacks (older server), told apart from a missing objective. */
function objectiveError(error: unknown): string {
  return error instanceof ApiError && error.status === 404 && error.code !== "not_found" ? "Objectives are not available yet on this server" : errorMessage(error);
}

/** `/done`, `/objective cancel` and the objective banner's buttons. */
export async function setObjectiveStatus(conversationId: string, status: "completed" | "cancelled"): Promise<void> {
  try {
    await apiFetch(`/api/conversations/${conversationId}/objective`, { method: "PATCH", body: { status } });
    toast.success(status === "completed" ? "Objective marked done" : "Objective cancelled");
  } catch (error) {
    toast.error(objectiveError(error));
  }
}

/** Runs a slash command typed in the composer; `/fork` is the view's own action (it navigates). */
export async function runSlashCommand(conversationId: string, command: SlashCommandName, argument: string, fork: () => Promise<void>): Promise<void> {
  switch (command) {
    case "fork":
      await fork();
      return;
    case "compact":
      await compactNow(conversationId);
      return;
    case "objective":
      if (argument === "") {
        toast.error("Write the goal after /objective, for example: /objective make the tests pass");
        return;
      }
      try {
        await apiFetch(`/api/conversations/${conversationId}/objective`, { method: "POST", body: { text: argument, requestKey: newRequestKey() } });
        toast.success("Objective opened");
      } catch (error) {
        toast.error(objectiveError(error));
      }
      return;
    case "done":
    case "objective-cancel":
      await setObjectiveStatus(conversationId, command === "done" ? "completed" : "cancelled");
      return;
  }
}
