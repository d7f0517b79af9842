import type { z } from "zod";
import * as schemas from "./schemas";
import { updateSubscriptionsBody } from "./stream-schemas";

/** A JSON Schema fragment for an answer body: a reference to a component, or an inline object. */
export type BodySchema = Record<string, unknown>;

export interface Answer {
  description: string;
  schema?: BodySchema;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface Operation {
  operationId: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  multipart?: boolean;
  answers: Record<number, Answer>;
  /** Error statuses beyond the ones every operation of its kind can give (see openapi.ts). */
  errors?: number[];
  /** Authenticated otherwise than by the token or cookie (the webhook's signature). */
  public?: boolean;
}

const ref = (name: string): BodySchema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: BodySchema): BodySchema => ({ anyOf: [schema, { type: "null" }] });
const object = (properties: Record<string, BodySchema>, required = Object.keys(properties)): BodySchema => ({ type: "object", properties, required });
const arrayOf = (name: string): BodySchema => ({ type: "array", items: ref(name) });
const list = (key: string, name: string): BodySchema => object({ [key]: arrayOf(name), nextCursor: nullable({ type: "string" }) });
const one = (key: string, name: string): BodySchema => object({ [key]: ref(name) });

const messageOutcome = object({
  message: object({ id: { type: "string" }, mode: { type: "string" }, status: { type: "string", enum: ["started", "steered", "queued", "jumped"] } }),
  turn: nullable(ref("Turn")),
});
const sse = (name: string): Answer => ({ description: "text/event-stream of events", contentType: "text/event-stream", schema: ref(name) });

/**
 * Every operation the app serves (DESIGN §8), keyed by OpenAPI path. A test compares this
 * table with the route files under app/api, so a new route without an entry fails.
 */
export const OPERATIONS: Record<string, Record<string, Operation>> = {
  "/api/health": {
    get: {
      operationId: "getHealth",
      summary: "Health check (the server listens only after recovery); on a node of a cluster, `node` names it",
      answers: { 200: { description: "ok", schema: object({ status: { type: "string" }, node: object({ id: { type: "string" }, url: nullable({ type: "string" }) }) }, ["status"]) } },
    },
  },
  "/api/cluster": {
    get: {
      operationId: "getCluster",
      summary: "The nodes of the cluster (DESIGN §10c); 404 on a single node",
      answers: {
        200: {
          description: "nodes, oldest first",
          schema: object({
            nodes: {
              type: "array",
              items: object({
                id: { type: "string" },
                url: nullable({ type: "string" }),
                startedAt: { type: "string" },
                lastSeenAt: { type: "string" },
                conversations: { type: "integer" },
                current: { type: "boolean" },
              }),
            },
          }),
        },
      },
      errors: [404],
    },
  },
  "/api/openapi.json": { get: { operationId: "getOpenApiDocument", summary: "This document", answers: { 200: { description: "the OpenAPI document", schema: { type: "object" } } } } },
  "/api/conversations": {
    get: {
      operationId: "listConversations",
      summary: "List or search conversations",
      query: schemas.listConversationsQuery,
      answers: { 200: { description: "a page of conversations", schema: object({ conversations: arrayOf("Conversation"), nextCursor: nullable({ type: "string" }), total: { type: "integer" } }) } },
    },
    post: {
      operationId: "createConversation",
      summary: "Create a conversation and send its first message",
      body: schemas.createConversationBody,
      answers: { 201: { description: "created", schema: object({ conversation: ref("Conversation"), message: object({ id: { type: "string" } }), turn: nullable(object({ id: { type: "string" } })) }) } },
      errors: [409, 422],
    },
  },
  "/api/conversations/{id}": {
    get: { operationId: "getConversation", summary: "Get a conversation", answers: { 200: { description: "the conversation", schema: one("conversation", "Conversation") } } },
    patch: {
      operationId: "updateConversation",
      summary: "Rename, archive, protect, change model/effort/cwd",
      body: schemas.updateConversationBody,
      answers: { 200: { description: "the conversation", schema: one("conversation", "Conversation") } },
      errors: [409, 422],
    },
    delete: { operationId: "deleteConversation", summary: "Delete (409 while a turn runs or when protected)", answers: { 204: { description: "deleted" } }, errors: [409] },
  },
  "/api/conversations/{id}/fork": {
    post: { operationId: "forkConversation", summary: "Fork", body: schemas.forkBody, answers: { 201: { description: "the new conversation", schema: one("conversation", "Conversation") } }, errors: [409] },
  },
  "/api/conversations/{id}/rewind": {
    get: {
      operationId: "previewRewind",
      summary: "Files changed since an owner's message (?itemId=): what restoreFiles would put back",
      query: schemas.rewindPreviewQuery,
      answers: { 200: { description: "the paths", schema: object({ files: { type: "array", items: { type: "string" } } }) } },
    },
    post: {
      operationId: "rewindConversation",
      summary: "Restart from an owner's message; restoreFiles also puts the files changed since back",
      body: schemas.rewindBody,
      answers: {
        201: {
          description: "the new conversation, the message's text as a draft, and the restored paths",
          schema: object({ conversation: ref("Conversation"), draft: { type: "string" }, restored: { type: "array", items: { type: "string" } } }),
        },
      },
      errors: [409],
    },
  },
  "/api/conversations/{id}/items": {
    get: {
      operationId: "listItems",
      summary: "History, paged by seq (forward with after, backward with before or tail, a window with around, matches with q)",
      query: schemas.listItemsQuery,
      answers: {
        200: {
          description: "a page of items",
          schema: object(
            { items: arrayOf("Item"), nextCursor: nullable({ type: "integer" }), previousCursor: nullable({ type: "integer" }), total: { type: "integer" } },
            ["items", "nextCursor"],
          ),
        },
      },
    },
  },
  "/api/conversations/{id}/find": {
    get: {
      operationId: "findInConversation",
      summary: "Find a text in the history: every match in messages and tool output, counted, the newest hits first",
      query: schemas.findItemsQuery,
      answers: {
        200: {
          description: "hits in seq order (the newest page first), each with its number of matches; total counts every match in the session",
          schema: object({
            hits: { type: "array", items: object({ itemId: { type: "string" }, seq: { type: "integer" }, kind: { type: "string" }, matches: { type: "integer" } }) },
            nextCursor: nullable({ type: "integer" }),
            total: { type: "integer" },
          }),
        },
      },
    },
  },
  "/api/conversations/{id}/messages": {
    post: { operationId: "sendMessage", summary: "Send a message (auto|steer|queue|jump)", body: schemas.sendMessageBody, answers: { 202: { description: "accepted", schema: messageOutcome } }, errors: [409, 422, 429] },
  },
  "/api/conversations/{id}/queue": {
    get: { operationId: "listWaiting", summary: "Waiting messages", answers: { 200: { description: "the waiting list", schema: object({ waiting: arrayOf("Waiting") }) } } },
  },
  "/api/conversations/{id}/queue/{msgId}": {
    patch: { operationId: "updateWaiting", summary: "Edit a waiting message or change its mode", body: schemas.updateWaitingBody, answers: { 200: { description: "the message", schema: object({ message: ref("Waiting") }) } }, errors: [409, 429] },
    delete: { operationId: "withdrawWaiting", summary: "Withdraw a waiting message", answers: { 204: { description: "withdrawn" } }, errors: [409] },
  },
  "/api/conversations/{id}/interrupt": {
    post: { operationId: "interruptTurn", summary: "Interrupt the running turn", body: schemas.interruptBody, answers: { 202: { description: "the interrupted turn, or null", schema: object({ turn: nullable(ref("Turn")) }) } } },
  },
  "/api/conversations/{id}/turns": { get: { operationId: "listTurns", summary: "Turns", answers: { 200: { description: "the turns", schema: object({ turns: arrayOf("Turn") }) } } } },
  "/api/turns/{turnId}": {
    get: { operationId: "getTurn", summary: "Run status and timeline", answers: { 200: { description: "the turn", schema: object({ turn: ref("Turn"), timeline: arrayOf("TimelineEntry") }) } } },
  },
  "/api/turns/{turnId}/changes": {
    get: {
      operationId: "getTurnChanges",
      summary: "Files the turn changed, with a unified diff (?item= for one tool call, ?context= lines around each change)",
      query: schemas.turnChangesQuery,
      answers: { 200: { description: "the changes", schema: ref("TurnChanges") } },
    },
  },
  "/api/turns/{turnId}/revert": {
    post: {
      operationId: "revertTurnFile",
      summary: "Put one file the turn changed back to how it was before the turn, on the conversation's machine",
      body: schemas.revertFileBody,
      answers: { 200: { description: "the paths restored ([] when the file already was as before)", schema: object({ restored: { type: "array", items: { type: "string" } } }) } },
      errors: [409],
    },
  },
  "/api/conversations/{id}/sessions": {
    get: { operationId: "listSessions", summary: "Agent sessions (tree by parentSessionId)", answers: { 200: { description: "the sessions", schema: object({ sessions: arrayOf("Session") }) } } },
  },
  "/api/conversations/{id}/events": {
    get: { operationId: "streamConversationEvents", summary: "SSE: snapshot then live events; resumable with Last-Event-ID", query: schemas.conversationEventsQuery, answers: { 200: sse("ConversationEvent") }, errors: [429] },
  },
  "/api/events": { get: { operationId: "streamListEvents", summary: "SSE: list-level changes", answers: { 200: sse("ListEvent") }, errors: [429] } },
  "/api/stream": {
    get: {
      operationId: "openStream",
      summary: "SSE: the browser's one multiplexed stream (StreamFrame frames: stream.opened, list, conversation, subscription.failed)",
      answers: { 200: sse("StreamFrame") },
      errors: [429],
    },
  },
  "/api/stream/{streamId}/subscriptions": {
    post: {
      operationId: "updateStreamSubscriptions",
      summary: "Add or remove a stream's conversation subscriptions (snapshot or replay after lastEventId, then live)",
      body: updateSubscriptionsBody,
      answers: { 200: { description: "the stream's subscriptions", schema: object({ subscriptions: { type: "integer" } }) } },
      errors: [404],
    },
  },
  "/api/approvals": {
    get: { operationId: "listApprovals", summary: "Approvals", query: schemas.approvalsQuery, answers: { 200: { description: "the approvals", schema: list("approvals", "Approval") } } },
  },
  "/api/approvals/{id}": {
    post: {
      operationId: "decideApproval",
      summary: "Approve or deny; `remember` with approve also stores an \"always allow in this project\" rule, returned as `rule`",
      body: schemas.decisionBody,
      answers: { 200: { description: "the approval (and the rule made)", schema: object({ approval: ref("Approval"), rule: ref("ApprovalRule") }, ["approval"]) } },
      errors: [409],
    },
  },
  "/api/approval-rules": {
    get: {
      operationId: "listApprovalRules",
      summary: "Rules made by \"Always allow in this project\" (?machine=&path= narrow them to one project)",
      query: schemas.approvalRulesQuery,
      answers: { 200: { description: "the rules", schema: list("rules", "ApprovalRule") } },
    },
  },
  "/api/approval-rules/{id}": {
    delete: { operationId: "deleteApprovalRule", summary: "Remove a rule: matching calls ask again", answers: { 204: { description: "removed" } } },
  },
  "/api/questions": {
    get: { operationId: "listQuestions", summary: "Questions (?status=pending&conversation=)", query: schemas.questionsQuery, answers: { 200: { description: "the questions", schema: list("questions", "Question") } } },
  },
  "/api/questions/{id}/answer": {
    post: { operationId: "answerQuestion", summary: "Answer an ask_user question", body: schemas.answerBody, answers: { 200: { description: "the question", schema: one("question", "Question") } }, errors: [409] },
  },
  "/api/conversations/{id}/context": {
    get: { operationId: "getContext", summary: "Context usage", answers: { 200: { description: "the context figures", schema: one("context", "Context") } } },
  },
  "/api/conversations/{id}/compact": {
    post: {
      operationId: "compactConversation",
      summary: "Compact now (409 not_idle while anything runs or waits)",
      answers: {
        200: { description: "nothing old enough to summarize", schema: object({ compacted: { type: "boolean", const: false }, reason: { type: "string" } }) },
        202: { description: "compacted", schema: object({ compacted: { type: "boolean", const: true }, itemId: { type: "string" } }) },
      },
      errors: [409, 502],
    },
  },
  "/api/conversations/{id}/artifacts/{artifactId}": {
    get: {
      operationId: "readArtifact",
      summary: "A page of a stored tool output (?page=N, from 1)",
      query: schemas.artifactQuery,
      answers: { 200: { description: "one page", schema: object({ artifact: object({ id: { type: "string" }, bytes: { type: "integer" }, pages: { type: "integer" } }), page: { type: "integer" }, text: { type: "string" } }) } },
    },
  },
  "/api/conversations/{id}/attachments/{attachmentId}": {
    get: { operationId: "getAttachment", summary: "An attached file, with its media type", answers: { 200: { description: "the file", contentType: "application/octet-stream", schema: { type: "string", contentMediaType: "application/octet-stream" } } } },
  },
  "/api/conversations/{id}/objective": {
    get: { operationId: "getObjective", summary: "The conversation's objective", answers: { 200: { description: "the objective, or null", schema: object({ objective: nullable(ref("Objective")) }) } } },
    post: { operationId: "openObjective", summary: "Open an objective (starts the first slice when idle)", body: schemas.objectiveBody, answers: { 201: { description: "the objective", schema: one("objective", "Objective") } }, errors: [409] },
    patch: { operationId: "changeObjective", summary: "Complete, cancel, block, pause or reopen it", body: schemas.objectivePatchBody, answers: { 200: { description: "the objective", schema: one("objective", "Objective") } }, errors: [409] },
  },
  "/api/attachments": {
    post: {
      operationId: "uploadAttachment",
      summary: "Upload a file (multipart, field file; 20 MiB; images, text, PDF, JSON)",
      multipart: true,
      answers: { 201: { description: "held until a message names it", schema: one("attachment", "Attachment") } },
    },
  },
  "/api/webhooks/github": {
    post: {
      operationId: "deliverGithubWebhook",
      summary: "GitHub webhook, authenticated by X-Hub-Signature-256 (not by the token)",
      public: true,
      answers: { 202: { description: "delivered", schema: object({ matched: { type: "integer" } }) } },
    },
  },
  "/api/models": { get: { operationId: "listModels", summary: "Configured models", answers: { 200: { description: "the models", schema: object({ models: arrayOf("Model") }) } } } },
  "/api/auth/sessions": {
    get: {
      operationId: "listSignInSessions",
      summary: "Browser sign-in sessions (id is the start of the stored hash; current is the asking browser)",
      answers: {
        200: {
          description: "the sessions",
          schema: object({
            sessions: {
              type: "array",
              items: object({ id: { type: "string" }, browser: { type: "string" }, createdAt: { type: "string" }, lastSeenAt: { type: "string" }, current: { type: "boolean" } }),
            },
          }),
        },
      },
    },
    delete: { operationId: "endAllSignInSessions", summary: "Sign out everywhere: every browser session ends", answers: { 204: { description: "all sessions ended" } } },
  },
  "/api/machines": {
    get: { operationId: "listMachines", summary: "Machines, the built-in one first (DESIGN §10b)", answers: { 200: { description: "the machines", schema: object({ machines: arrayOf("Machine") }) } } },
    post: {
      operationId: "addMachine",
      summary: "Add a machine; its token is in this answer only (a machine links with it at GET /api/machines/connect, a WebSocket)",
      body: schemas.addMachineBody,
      answers: { 201: { description: "added", schema: object({ machine: ref("Machine"), token: { type: "string" } }) } },
    },
  },
  "/api/machines/{id}": {
    get: { operationId: "getMachine", summary: "One machine", answers: { 200: { description: "the machine", schema: one("machine", "Machine") } } },
    delete: { operationId: "removeMachine", summary: "Revoke a machine: its token stops working and its link is cut at once", answers: { 204: { description: "revoked" } } },
  },
  "/api/folders": {
    get: {
      operationId: "listFolders",
      summary: "The folders in a folder of a machine (?machine=, default local; ?path=, default the server's folder on local, the first root on a linked machine, read there)",
      query: schemas.foldersQuery,
      answers: { 200: { description: "the folders", schema: ref("FolderListing") } },
      errors: [409, 422],
    },
  },
  "/api/agents": { get: { operationId: "listAgents", summary: "Agent definitions", answers: { 200: { description: "the agents", schema: object({ agents: arrayOf("Agent") }) } } } },
  "/api/projects": {
    get: {
      operationId: "listProjects",
      summary: "Recent projects (a folder on a machine), the last used first; ?machine= keeps one machine's, ?agent= one agent's",
      query: schemas.projectsQuery,
      answers: { 200: { description: "the recent projects", schema: list("projects", "Project") } },
    },
  },
  "/api/tools": {
    get: {
      operationId: "listTools",
      summary: "Built-in and MCP tools with their approval, skills (?cwd= adds a project's, read on ?machine=), MCP servers and their status",
      query: schemas.toolsQuery,
      answers: { 200: { description: "tools, skills and MCP servers", schema: ref("Tools") } },
    },
  },
};
