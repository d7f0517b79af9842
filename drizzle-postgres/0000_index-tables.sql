CREATE TABLE "atrium_index_approvals" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"session_id" text COLLATE "C" NOT NULL,
	"turn_id" text COLLATE "C" NOT NULL,
	"item_id" text COLLATE "C" NOT NULL,
	"tool_name" text COLLATE "C" NOT NULL,
	"input" text COLLATE "C",
	"status" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"decided_at" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "atrium_index_compactions" (
	"item_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"session_id" text COLLATE "C" NOT NULL,
	"at" text COLLATE "C" NOT NULL,
	"tokens_before" bigint NOT NULL,
	"tokens_after" bigint NOT NULL,
	"first_kept_item_id" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "atrium_index_conversations" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"title" text COLLATE "C" NOT NULL,
	"title_source" text COLLATE "C" NOT NULL,
	"agent" text COLLATE "C" NOT NULL,
	"model" text COLLATE "C" NOT NULL,
	"effort" text COLLATE "C",
	"cwd" text COLLATE "C" NOT NULL,
	"executor" text COLLATE "C" NOT NULL,
	"root_session_id" text COLLATE "C" NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"protected" boolean DEFAULT false NOT NULL,
	"status" text COLLATE "C" DEFAULT 'idle' NOT NULL,
	"forked_from_conversation_id" text COLLATE "C",
	"forked_from_item_id" text COLLATE "C",
	"restart_of_item_id" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL,
	"metadata_seq" bigint DEFAULT 0 NOT NULL,
	"metadata_bytes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atrium_index_items" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"session_id" text COLLATE "C" NOT NULL,
	"seq" bigint NOT NULL,
	"turn_id" text COLLATE "C",
	"kind" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"text" text COLLATE "C",
	"tool_name" text COLLATE "C",
	"tool_call_id" text COLLATE "C",
	"input" text COLLATE "C",
	"output" text COLLATE "C",
	"exit_code" bigint,
	"sandbox" text COLLATE "C",
	"allowed_by" text COLLATE "C",
	"artifact_id" text COLLATE "C",
	"origin" text COLLATE "C",
	"from_session_id" text COLLATE "C",
	"attachments" text COLLATE "C",
	"provider_metadata" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atrium_index_objectives" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"text" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"slices" bigint DEFAULT 0 NOT NULL,
	"slice_limit" bigint NOT NULL,
	"reason" text COLLATE "C",
	"listener" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atrium_index_questions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"session_id" text COLLATE "C" NOT NULL,
	"turn_id" text COLLATE "C" NOT NULL,
	"item_id" text COLLATE "C" NOT NULL,
	"question" text COLLATE "C" NOT NULL,
	"choices" text COLLATE "C" DEFAULT '[]' NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"answer" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atrium_index_request_keys" (
	"scope" text COLLATE "C" NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"hash" text COLLATE "C" NOT NULL,
	"response" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "atrium_index_request_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "atrium_index_sessions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"parent_session_id" text COLLATE "C",
	"agent" text COLLATE "C" NOT NULL,
	"model" text COLLATE "C" NOT NULL,
	"depth" bigint DEFAULT 0 NOT NULL,
	"status" text COLLATE "C" DEFAULT 'idle' NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"file_seq" bigint DEFAULT 0 NOT NULL,
	"file_bytes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atrium_index_turns" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"session_id" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"model" text COLLATE "C" NOT NULL,
	"effort" text COLLATE "C",
	"started_at" text COLLATE "C" NOT NULL,
	"ended_at" text COLLATE "C",
	"error_code" text COLLATE "C",
	"error_message" text COLLATE "C",
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"input_message_ids" text COLLATE "C" DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atrium_index_waiting" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"conversation_id" text COLLATE "C" NOT NULL,
	"session_id" text COLLATE "C" NOT NULL,
	"text" text COLLATE "C" NOT NULL,
	"mode" text COLLATE "C" NOT NULL,
	"origin" text COLLATE "C" NOT NULL,
	"from_session_id" text COLLATE "C",
	"attachments" text COLLATE "C",
	"position" bigint NOT NULL,
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE INDEX "atrium_index_approvals_status" ON "atrium_index_approvals" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "atrium_index_conversations_updated" ON "atrium_index_conversations" USING btree ("archived","updated_at");--> statement-breakpoint
CREATE INDEX "atrium_index_conversations_recent" ON "atrium_index_conversations" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "atrium_index_items_session_seq" ON "atrium_index_items" USING btree ("session_id","seq");--> statement-breakpoint
CREATE INDEX "atrium_index_items_conversation" ON "atrium_index_items" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "atrium_index_sessions_conversation" ON "atrium_index_sessions" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "atrium_index_turns_conversation" ON "atrium_index_turns" USING btree ("conversation_id","started_at");--> statement-breakpoint
CREATE INDEX "atrium_index_turns_status" ON "atrium_index_turns" USING btree ("status");--> statement-breakpoint
CREATE INDEX "atrium_index_waiting_conversation" ON "atrium_index_waiting" USING btree ("conversation_id","position");