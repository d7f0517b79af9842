import { z } from "zod";
import {
  approvalSchema,
  contextSchema,
  conversationSchema,
  itemSchema,
  objectiveSchema,
  questionSchema,
  sessionSchema,
  turnSchema,
  waitingSchema,
} from "./entities";
import { machineSchema } from "../machines/machine-schema";

/**
 * The one event union (DESIGN §8): the bus publishes these, the SSE routes send them,
 * the OpenAPI document describes them.
 */
const scoped = {
  conversationId: z.string(),
  sessionId: z.string().optional(),
  turnId: z.string().optional(),
};

export const conversationEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("snapshot"),
    ...scoped,
    items: z.array(itemSchema),
    turns: z.array(turnSchema),
    waiting: z.array(waitingSchema),
  }),
  z.object({ type: z.literal("conversation.updated"), ...scoped, conversation: conversationSchema }),
  z.object({ type: z.literal("session.created"), ...scoped, session: sessionSchema }),
  z.object({ type: z.literal("turn.started"), ...scoped, turn: turnSchema }),
  z.object({
    type: z.literal("turn.retrying"),
    ...scoped,
    attempt: z.number().int(),
    delayMs: z.number().int(),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
  z.object({ type: z.literal("turn.ended"), ...scoped, turn: turnSchema }),
  z.object({ type: z.literal("turn.updated"), ...scoped, turn: turnSchema }),
  z.object({ type: z.literal("item.created"), ...scoped, item: itemSchema }),
  z.object({
    type: z.literal("item.delta"),
    ...scoped,
    itemId: z.string(),
    field: z.enum(["text", "reasoning", "output"]),
    delta: z.string(),
  }),
  z.object({ type: z.literal("item.completed"), ...scoped, item: itemSchema }),
  z.object({ type: z.literal("item.updated"), ...scoped, item: itemSchema }),
  z.object({ type: z.literal("queue.updated"), ...scoped, waiting: z.array(waitingSchema) }),
  z.object({ type: z.literal("approval.requested"), ...scoped, approval: approvalSchema }),
  z.object({ type: z.literal("approval.decided"), ...scoped, approval: approvalSchema }),
  z.object({ type: z.literal("question.asked"), ...scoped, question: questionSchema }),
  z.object({ type: z.literal("question.answered"), ...scoped, question: questionSchema }),
  z.object({ type: z.literal("context.updated"), ...scoped, context: contextSchema }),
  z.object({ type: z.literal("compaction.started"), ...scoped }),
  z.object({ type: z.literal("compaction.completed"), ...scoped, itemId: z.string().nullable() }),
  z.object({ type: z.literal("objective.updated"), ...scoped, objective: objectiveSchema.nullable() }),
]);
export type ConversationEvent = z.infer<typeof conversationEventSchema>;
export type ConversationEventType = ConversationEvent["type"];

export const listEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("conversation.created"), conversationId: z.string(), conversation: conversationSchema }),
  z.object({ type: z.literal("conversation.updated"), conversationId: z.string(), conversation: conversationSchema }),
  z.object({ type: z.literal("conversation.deleted"), conversationId: z.string() }),
  z.object({ type: z.literal("approval.requested"), conversationId: z.string(), approval: approvalSchema }),
  z.object({ type: z.literal("approval.decided"), conversationId: z.string(), approval: approvalSchema }),
  /** DESIGN §10b: a machine was added, revoked, came online or went offline. */
  z.object({ type: z.literal("machine.updated"), machine: machineSchema }),
]);
export type ListEvent = z.infer<typeof listEventSchema>;

/** A published event with its per-conversation id, as the SSE stream sends it. */
export interface Delivered<Event> {
  id: number;
  event: Event;
}
