import { z } from "zod";
import { folderListingSchema } from "../machines/folder-listing";
import { machineSchema } from "../machines/machine-schema";
import { projectSchema } from "../store/projects";
import { approvalRuleSchema } from "../tools/approval-rules";
import * as entities from "../events/entities";
import { conversationEventSchema, listEventSchema } from "../events/events";
import { SESSION_COOKIE } from "../auth/token";
import { idSchema } from "../store/id-schema";
import { OPERATIONS, type Answer, type Operation } from "./openapi-operations";
import { turnChangesResponse } from "./schemas";
import { streamFrameSchema } from "./stream-schemas";

const ERROR_ANSWERS: Record<number, string> = {
  400: "bad_request: malformed JSON, wrong types, a malformed id or a query parameter that does not parse",
  401: "unauthorized: no valid token or session cookie (for the webhook: a missing or wrong signature)",
  403: "forbidden: a write authenticated by the session cookie that came from another origin",
  404: "not_found",
  409: "turn_running | not_idle | idempotency_conflict | lock_held | protected | files_changed_outside (error.files names them) | snapshots_elsewhere (a cluster node: the built-in machine's file snapshots are on the node that took them)",
  413: "payload_too_large: the body passed its limit (JSON 1 MiB, webhooks 5 MiB, uploads 20 MiB)",
  415: "unsupported_media_type: a JSON body sent without content-type application/json, or an upload type not allowed",
  422: "missing_cwd | missing_model | missing_agent",
  429: "queue_full: the conversation already has 100 waiting messages or 10 MiB of waiting text; nothing was written | too_many_streams: this client (or the server) has as many event streams open as it may",
  502: "compaction_failed: the model could not summarize",
  503: "storage_error: the disk refused the write (I/O error); nothing was written. When only the SQLite index failed (SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_CORRUPT) the record is saved in the conversation's files and the index catches up from them | node_unavailable (cluster mode, DESIGN §10c): the node holding the conversation cannot be reached, or this node lost its lease during the command; retry",
  507: "storage_full: the disk is full (ENOSPC, EDQUOT); nothing was written. When only the SQLite index was refused (SQLITE_FULL) the record is saved in the conversation's files and the index catches up from them once there is space",
};

type JsonSchema = Record<string, unknown>;

/** zod's JSON Schema with the dialect marker dropped: OpenAPI 3.1 declares the dialect once for the document. */
function jsonSchema(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

function pathParameters(route: string): JsonSchema[] {
  const idPattern = jsonSchema(idSchema);
  return [...route.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, description: `${name}: a ULID`, schema: idPattern }));
}

/** Query parameters from the very zod object the route parses with. */
function queryParameters(query: z.ZodObject | undefined): JsonSchema[] {
  if (!query) return [];
  const schema = jsonSchema(query, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

function errorStatuses(route: string, method: string, operation: Operation): number[] {
  const statuses = new Set<number>(operation.errors ?? []);
  const hasPathIds = route.includes("{");
  if (hasPathIds || operation.query || operation.body || operation.multipart || operation.public) statuses.add(400);
  statuses.add(401);
  if (method !== "get" && !operation.public) statuses.add(403);
  if (hasPathIds) statuses.add(404);
  if (operation.body || operation.multipart || operation.public) {
    statuses.add(413);
    statuses.add(415);
  }
  if (method !== "get") {
    statuses.add(503);
    statuses.add(507);
  }
  return [...statuses].sort((a, b) => a - b);
}

function answer(status: number, value: Answer): [string, JsonSchema] {
  if (!value.schema || status === 204) return [String(status), { description: value.description }];
  return [String(status), { description: value.description, content: { [value.contentType ?? "application/json"]: { schema: value.schema } } }];
}

function buildOperation(route: string, method: string, operation: Operation): JsonSchema {
  const parameters = [...pathParameters(route), ...queryParameters(operation.query)];
  const requestBody = operation.body
    ? { required: true, content: { "application/json": { schema: jsonSchema(operation.body, "input") } } }
    : operation.multipart
      ? {
          required: true,
          content: { "multipart/form-data": { schema: { type: "object", properties: { file: { type: "string", contentMediaType: "application/octet-stream" } }, required: ["file"] } } },
        }
      : undefined;
  const responses = Object.fromEntries([
    ...Object.entries(operation.answers).map(([status, value]) => answer(Number(status), value)),
    ...errorStatuses(route, method, operation).map((status) => [
      String(status),
      { description: ERROR_ANSWERS[status] ?? "error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    ]),
  ]);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The OpenAPI document, generated from the same zod schemas the routes validate with (DESIGN §8). */
export function openApiDocument(serverUrl = "http://127.0.0.1:3000"): Record<string, unknown> {
  const componentSchemas: Record<string, unknown> = {
    Conversation: jsonSchema(entities.conversationSchema),
    Session: jsonSchema(entities.sessionSchema),
    Item: jsonSchema(entities.itemSchema),
    Turn: jsonSchema(entities.turnSchema),
    Waiting: jsonSchema(entities.waitingSchema),
    Approval: jsonSchema(entities.approvalSchema),
    Question: jsonSchema(entities.questionSchema),
    Agent: jsonSchema(entities.agentSchema),
    Machine: jsonSchema(machineSchema),
    Project: jsonSchema(projectSchema),
    FolderListing: jsonSchema(folderListingSchema),
    ApprovalRule: jsonSchema(approvalRuleSchema),
    Tools: jsonSchema(entities.toolsOverviewSchema),
    Model: jsonSchema(entities.modelInfoSchema),
    Attachment: jsonSchema(entities.attachmentSchema),
    TimelineEntry: jsonSchema(entities.timelineEntrySchema),
    Context: jsonSchema(entities.contextSchema),
    Objective: jsonSchema(entities.objectiveSchema),
    TurnChanges: jsonSchema(turnChangesResponse),
    ConversationEvent: jsonSchema(conversationEventSchema),
    ListEvent: jsonSchema(listEventSchema),
    StreamFrame: jsonSchema(streamFrameSchema),
    Error: {
      type: "object",
      properties: { error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, required: ["code", "message"] } },
      required: ["error"],
    },
  };
  const paths = Object.fromEntries(
    Object.entries(OPERATIONS).map(([route, operations]) => [
      route,
      Object.fromEntries(Object.entries(operations).map(([method, operation]) => [method, buildOperation(route, method, operation)])),
    ]),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Atrium",
      version: "1",
      description: "Self-hosted runtime for AI agent conversations. Errors are {error: {code, message}}.",
    },
    servers: [{ url: serverUrl, description: "this Atrium server" }],
    security: [{ bearer: [] }, { cookie: [] }],
    components: {
      schemas: componentSchemas,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "the access token (atrium token)" },
        cookie: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "the browser session set by /auth/signin" },
      },
    },
    paths,
  };
}
