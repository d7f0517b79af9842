import { z } from "zod";
import { conversationEventSchema, listEventSchema } from "../events/events";
import { idSchema } from "../store/id-schema";

/**
 * The browser's one multiplexed stream (DESIGN §8). A subscription is named by a key the
 * client picks (one per live component), so two panels on one conversation each get their own
 * snapshot; resume is per subscription by the conversation's event ids.
 */
export const subscriptionKeySchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,80}$/, "keys are 1-80 letters, digits and _ . : -");

export const streamSubscriptionSchema = z.object({
  key: subscriptionKeySchema,
  conversationId: idSchema,
  /** A subagent session's events only; the root and every session when absent. */
  session: idSchema.optional(),
  /** The last event id this subscriber saw: missed events are replayed, else a fresh snapshot. */
  lastEventId: z.number().int().nonnegative().optional(),
});
export type StreamSubscription = z.infer<typeof streamSubscriptionSchema>;

export const MAX_SUBSCRIPTIONS_PER_STREAM = 500;

export const updateSubscriptionsBody = z
  .object({
    add: z.array(streamSubscriptionSchema).max(MAX_SUBSCRIPTIONS_PER_STREAM).default([]),
    remove: z.array(subscriptionKeySchema).max(MAX_SUBSCRIPTIONS_PER_STREAM).default([]),
  })
  .strict();

/** Frames of GET /api/stream: the SSE event name is the frame's `type`; data is this JSON. */
export const streamFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("stream.opened"), streamId: idSchema }),
  z.object({ type: z.literal("list"), id: z.number(), event: listEventSchema }),
  z.object({ type: z.literal("conversation"), key: subscriptionKeySchema, id: z.number(), event: conversationEventSchema }),
  z.object({
    type: z.literal("subscription.failed"),
    key: subscriptionKeySchema,
    conversationId: z.string(),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
export type StreamFrame = z.infer<typeof streamFrameSchema>;
