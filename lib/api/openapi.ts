import { z } from "zod";
import * as entities from "../events/entities";
import { conversationEventSchema, listEventSchema } from "../events/events";
import * as schemas from "./schemas";

type Operation = { summary: string; body?: z.ZodType; responses: Record<string, string> };

const ID = "{id}";
const paths: Record<string, Record<string, Operation>> = {
  "/api/health": { get: { summary: "Health check (the server listens only after recovery)", responses: { 200: "ok" } } },
  "/api/conversations": {
    get: { summary: "List or search conversations", responses: { 200: "{conversations, nextCursor, total}" } },
    post: { summary: "Create a conversation and send its first message", body: schemas.createConversationBody, responses: { 201: "{conversation, message, turn}" } },
  },
  [`/api/conversations/${ID}`]: {
    get: { summary: "Get a conversation", responses: { 200: "{conversation}" } },
    patch: { summary: "Rename, archive, protect, change model/effort/cwd", body: schemas.updateConversationBody, responses: { 200: "{conversation}" } },
    delete: { summary: "Delete (409 while a turn runs or when protected)", responses: { 204: "deleted" } },
  },
  [`/api/conversations/${ID}/fork`]: { post: { summary: "Fork", body: schemas.forkBody, responses: { 201: "{conversation}" } } },
  [`/api/conversations/${ID}/rewind`]: { post: { summary: "Restart from an owner's message", body: schemas.rewindBody, responses: { 201: "{conversation, draft}" } } },
  [`/api/conversations/${ID}/items`]: { get: { summary: "History, paged by seq", responses: { 200: "{items, nextCursor}" } } },
  [`/api/conversations/${ID}/messages`]: { post: { summary: "Send a message (auto|steer|queue|jump)", body: schemas.sendMessageBody, responses: { 202: "{message, turn}" } } },
  [`/api/conversations/${ID}/queue`]: { get: { summary: "Waiting messages", responses: { 200: "{waiting}" } } },
  [`/api/conversations/${ID}/queue/{msgId}`]: {
    patch: { summary: "Edit a waiting message or change its mode", body: schemas.updateWaitingBody, responses: { 200: "{message}" } },
    delete: { summary: "Withdraw a waiting message", responses: { 204: "withdrawn" } },
  },
  [`/api/conversations/${ID}/interrupt`]: { post: { summary: "Interrupt the running turn", body: schemas.interruptBody, responses: { 202: "{turn}" } } },
  [`/api/conversations/${ID}/turns`]: { get: { summary: "Turns", responses: { 200: "{turns}" } } },
  "/api/turns/{turnId}": { get: { summary: "Run status and timeline", responses: { 200: "{turn, timeline}" } } },
  [`/api/conversations/${ID}/sessions`]: { get: { summary: "Agent sessions (tree by parentSessionId)", responses: { 200: "{sessions}" } } },
  [`/api/conversations/${ID}/events`]: { get: { summary: "SSE: snapshot then live events; resumable with Last-Event-ID", responses: { 200: "text/event-stream" } } },
  "/api/events": { get: { summary: "SSE: list-level changes", responses: { 200: "text/event-stream" } } },
  "/api/approvals": { get: { summary: "Approvals", responses: { 200: "{approvals}" } } },
  "/api/approvals/{id}": { post: { summary: "Approve or deny", body: schemas.decisionBody, responses: { 200: "{approval}" } } },
  "/api/questions/{id}/answer": { post: { summary: "Answer an ask_user question", body: schemas.answerBody, responses: { 200: "{question}" } } },
  [`/api/conversations/${ID}/context`]: { get: { summary: "Context usage", responses: { 200: "{context}" } } },
  [`/api/conversations/${ID}/compact`]: { post: { summary: "Compact now (409 not_idle while anything runs or waits)", responses: { 202: "{compacted: true, itemId}", 200: "{compacted: false, reason}" } } },
  [`/api/conversations/${ID}/artifacts/{artifactId}`]: { get: { summary: "A page of a stored tool output (?page=N, from 1)", responses: { 200: "{artifact, page, text}" } } },
  [`/api/conversations/${ID}/attachments/{attachmentId}`]: { get: { summary: "An attached file, with its media type", responses: { 200: "the file" } } },
  [`/api/conversations/${ID}/objective`]: {
    get: { summary: "The conversation's objective", responses: { 200: "{objective}" } },
    post: { summary: "Open an objective (starts the first slice when idle)", body: schemas.objectiveBody, responses: { 201: "{objective}" } },
    patch: { summary: "Complete, cancel, block, pause or reopen it", body: schemas.objectivePatchBody, responses: { 200: "{objective}" } },
  },
  "/api/attachments": { post: { summary: "Upload a file (multipart, field file; 20 MiB; images, text, PDF, JSON)", responses: { 201: "{attachment}", 413: "too large", 415: "type not allowed" } } },
  "/api/questions": { get: { summary: "Questions (?status=pending&conversation=)", responses: { 200: "{questions}" } } },
  "/api/webhooks/github": { post: { summary: "GitHub webhook, authenticated by X-Hub-Signature-256", responses: { 202: "{matched}", 401: "missing or wrong signature" } } },
  "/api/models": { get: { summary: "Configured models", responses: { 200: "{models}" } } },
  "/api/agents": { get: { summary: "Agent definitions", responses: { 200: "{agents}" } } },
};

/** What any request that writes may answer when the disk fails (DESIGN §2, storage faults). */
const STORAGE_FAULTS = {
  "503": "storage_error: a write or flush failed; nothing was written",
  "507": "storage_full: the disk or quota is full; nothing was written",
};

/** The OpenAPI document, generated from the same zod schemas the routes validate with. */

export function openApiDocument(): Record<string, unknown> {
  const componentSchemas: Record<string, unknown> = {
    Conversation: z.toJSONSchema(entities.conversationSchema),
    Session: z.toJSONSchema(entities.sessionSchema),
    Item: z.toJSONSchema(entities.itemSchema),
    Turn: z.toJSONSchema(entities.turnSchema),
    Waiting: z.toJSONSchema(entities.waitingSchema),
    Approval: z.toJSONSchema(entities.approvalSchema),
    Question: z.toJSONSchema(entities.questionSchema),
    Agent: z.toJSONSchema(entities.agentSchema),
    Model: z.toJSONSchema(entities.modelInfoSchema),
    TimelineEntry: z.toJSONSchema(entities.timelineEntrySchema),
    Context: z.toJSONSchema(entities.contextSchema),
    Objective: z.toJSONSchema(entities.objectiveSchema),
    ConversationEvent: z.toJSONSchema(conversationEventSchema),
    ListEvent: z.toJSONSchema(listEventSchema),
    Error: {
      type: "object",
      properties: { error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, required: ["code", "message"] } },
      required: ["error"],
    },
  };
  const openApiPaths: Record<string, unknown> = {};
  for (const [route, operations] of Object.entries(paths)) {
    openApiPaths[route] = Object.fromEntries(
      Object.entries(operations).map(([method, operation]) => [
        method,
        {
          summary: operation.summary,
          security: [{ bearer: [] }],
          ...(operation.body
            ? { requestBody: { content: { "application/json": { schema: z.toJSONSchema(operation.body, { io: "input" }) } } } }
            : {}),
          responses: Object.fromEntries(
            Object.entries({ ...operation.responses, ...(method === "get" ? {} : STORAGE_FAULTS) }).map(([status, description]) => [
              status,
              { description },
            ]),
          ),
        },
      ]),
    );
  }
  return {
    openapi: "3.1.0",
    info: { title: "Atrium", version: "1" },
    components: { schemas: componentSchemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths: openApiPaths,
  };
}
