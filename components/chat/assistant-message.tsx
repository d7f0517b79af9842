import type { Item } from "@/lib/events/entities";
import { TurnTimelineButton } from "@/components/timeline/turn-timeline";
import { CopyButton } from "./copy-button";
import { ItemStatusBadge } from "./item-status-badge";
import { Markdown } from "./markdown";

export function AssistantMessage({ item }: { item: Item }) {
  const text = item.text ?? "";
  const streaming = item.status === "streaming";
  return (
    <div className="group/assistant flex flex-col gap-1" data-item-kind="assistant_message" data-status={item.status} aria-busy={streaming}>
      <div className="text-[15px]">
        {text === "" && streaming ? (
          <span className="inline-block h-4 w-2 animate-pulse rounded-sm bg-foreground/60 align-middle" aria-label="Writing" />
        ) : (
          <Markdown text={text} className={streaming ? "streaming-caret" : undefined} />
        )}
      </div>
      {!streaming && (
        <div className="flex items-center gap-1.5">
          <ItemStatusBadge status={item.status} />
          {text !== "" && (
            <CopyButton
              label="Copy reply"
              getText={() => text}
              className="opacity-100 md:opacity-0 md:group-focus-within/assistant:opacity-100 md:group-hover/assistant:opacity-100"
            />
          )}
          {item.turnId && (
            <TurnTimelineButton
              turnId={item.turnId}
              className="text-muted-foreground opacity-100 md:opacity-0 md:group-focus-within/assistant:opacity-100 md:group-hover/assistant:opacity-100"
            />
          )}
        </div>
      )}
    </div>
  );
}
