CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`session_id` text NOT NULL,
	`turn_id` text NOT NULL,
	`item_id` text NOT NULL,
	`tool_name` text NOT NULL,
	`input` text,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`decided_at` text
);
--> statement-breakpoint
CREATE INDEX `approvals_status` ON `approvals` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `compactions` (
	`item_id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`session_id` text NOT NULL,
	`at` text NOT NULL,
	`tokens_before` integer NOT NULL,
	`tokens_after` integer NOT NULL,
	`first_kept_item_id` text
);
--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`title_source` text NOT NULL,
	`agent` text NOT NULL,
	`model` text NOT NULL,
	`effort` text,
	`cwd` text NOT NULL,
	`executor` text NOT NULL,
	`root_session_id` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`protected` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'idle' NOT NULL,
	`forked_from_conversation_id` text,
	`forked_from_item_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`metadata_seq` integer DEFAULT 0 NOT NULL,
	`metadata_bytes` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `conversations_updated` ON `conversations` (`archived`,`updated_at`);--> statement-breakpoint
CREATE TABLE `items` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`turn_id` text,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`text` text,
	`tool_name` text,
	`tool_call_id` text,
	`input` text,
	`output` text,
	`exit_code` integer,
	`artifact_id` text,
	`origin` text,
	`from_session_id` text,
	`attachments` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `items_session_seq` ON `items` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `items_conversation` ON `items` (`conversation_id`);--> statement-breakpoint
CREATE TABLE `objectives` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`text` text NOT NULL,
	`status` text NOT NULL,
	`slices` integer DEFAULT 0 NOT NULL,
	`slice_limit` integer NOT NULL,
	`reason` text,
	`listener` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `questions` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`session_id` text NOT NULL,
	`turn_id` text NOT NULL,
	`item_id` text NOT NULL,
	`question` text NOT NULL,
	`choices` text DEFAULT '[]' NOT NULL,
	`status` text NOT NULL,
	`answer` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `request_keys` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`hash` text NOT NULL,
	`response` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`parent_session_id` text,
	`agent` text NOT NULL,
	`model` text NOT NULL,
	`depth` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'idle' NOT NULL,
	`created_at` text NOT NULL,
	`file_seq` integer DEFAULT 0 NOT NULL,
	`file_bytes` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_conversation` ON `sessions` (`conversation_id`);--> statement-breakpoint
CREATE TABLE `turns` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`session_id` text NOT NULL,
	`status` text NOT NULL,
	`model` text NOT NULL,
	`effort` text,
	`started_at` text NOT NULL,
	`ended_at` text,
	`error_code` text,
	`error_message` text,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`input_message_ids` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `turns_conversation` ON `turns` (`conversation_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `turns_status` ON `turns` (`status`);--> statement-breakpoint
CREATE TABLE `waiting` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`session_id` text NOT NULL,
	`text` text NOT NULL,
	`mode` text NOT NULL,
	`origin` text NOT NULL,
	`from_session_id` text,
	`attachments` text,
	`position` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `waiting_conversation` ON `waiting` (`conversation_id`,`position`);