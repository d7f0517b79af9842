"use client";

import { ArrowDownIcon } from "lucide-react";
import { useCallback, useEffect, useImperativeHandle, useRef, useState, type ReactNode, type Ref } from "react";
import type { Item } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { SHOW_ITEM_EVENT } from "@/components/context/context-ring";
import { useConversationContext } from "./conversation-provider";
import { FindBar } from "./find-bar";
import type { FindMatch } from "./use-find-hits";
import { useStickToBottom } from "./use-stick-to-bottom";
import { VirtualHistory } from "./virtual-history";

export interface HistoryControls {
  /** To the latest message (the latest page is fetched again if a jump left it), following it from then on. */
  scrollToBottom(): void;
}

type ScrollTarget = { itemId: string; nonce: number } | null;

interface HistoryPaneProps {
  forkedFrom: { conversationId: string; parent: { id: string; title: string } | null; restart?: boolean } | null;
  restartingItemId: string | null;
  onRestart: (item: Item) => void;
  findOpen: boolean;
  /** Words to find as the bar opens, from the address; a new nonce opens it afresh. */
  findSeed: { query: string; nonce: number } | null;
  onFindOpenChange: (open: boolean) => void;
  controls: Ref<HistoryControls>;
  /** After the history, in the same scroll: the restart dialog, messages being sent. */
  children: ReactNode;
}

/** Back to the latest: once its page is in, scroll to the end (the pin only takes once the window reaches it). */
function useBackToLatest(hasNewer: boolean, scrollToBottom: (behavior?: ScrollBehavior) => void, loadLatest: () => Promise<boolean>) {
  const wantsEnd = useRef<ScrollBehavior | null>(null);
  const toLatest = useCallback(
    (behavior: ScrollBehavior = "auto") => {
      if (!hasNewer) {
        scrollToBottom(behavior);
        return;
      }
      wantsEnd.current = behavior;
      void loadLatest().then((loaded) => {
        if (!loaded) wantsEnd.current = null;
      });
    },
    [hasNewer, scrollToBottom, loadLatest],
  );
  useEffect(() => {
    if (hasNewer || wantsEnd.current === null) return;
    scrollToBottom(wantsEnd.current);
    wantsEnd.current = null;
  }, [hasNewer, scrollToBottom]);
  return toLatest;
}

/** The context ring's "Show the summary" for an item not rendered: load it if need be and scroll to it. */
function useShowItemRequests(release: () => void, loadAround: (itemId: string) => Promise<boolean>, setTarget: (target: ScrollTarget) => void) {
  useEffect(() => {
    const onShowItem = (event: Event) => {
      const itemId = (event as CustomEvent<{ itemId?: unknown }>).detail?.itemId;
      if (typeof itemId !== "string") return;
      event.preventDefault();
      release();
      void loadAround(itemId).then((loaded) => loaded && setTarget({ itemId, nonce: Date.now() }));
    };
    window.addEventListener(SHOW_ITEM_EVENT, onShowItem);
    return () => window.removeEventListener(SHOW_ITEM_EVENT, onShowItem);
  }, [release, loadAround, setTarget]);
}

/** Ctrl/Cmd+F finds in this conversation rather than in the page's few rendered rows. */
function useFindShortcut(onFindOpenChange: (open: boolean) => void) {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== "f") return;
      if (document.querySelector("[role=dialog], [role=alertdialog]")) return;
      event.preventDefault();
      onFindOpenChange(true);
      const field = document.querySelector<HTMLInputElement>('[role=search] input[aria-label="Find in conversation"]');
      field?.focus();
      field?.select();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [onFindOpenChange]);
}

/** The scrolling history of the conversation view: the virtual list, its pages, the find bar and the way back to the latest. */
export function HistoryPane({ forkedFrom, restartingItemId, onRestart, findOpen, findSeed, onFindOpenChange, controls, children }: HistoryPaneProps) {
  const { id, state, openTurn, connection, pages } = useConversationContext();
  const [content, setContent] = useState<HTMLDivElement | null>(null);
  const { container, atBottom, scrollToBottom, release } = useStickToBottom<HTMLDivElement>(content, !state.hasNewer);
  const [target, setTarget] = useState<ScrollTarget>(null);
  const [hit, setHit] = useState<FindMatch | null>(null);
  const toLatest = useBackToLatest(state.hasNewer, scrollToBottom, pages.loadLatest);
  useImperativeHandle(controls, () => ({ scrollToBottom: () => toLatest() }), [toLatest]);
  useShowItemRequests(release, pages.loadAround, setTarget);
  useFindShortcut(onFindOpenChange);

  const { loadAround } = pages;
  const jump = useCallback(
    async (match: FindMatch) => {
      release();
      setHit(match);
      if (!(await loadAround(match.itemId))) return;
      release();
      setTarget({ itemId: match.itemId, nonce: match.nonce });
    },
    [release, loadAround],
  );

  return (
    <div className="relative min-h-0 flex-1">
      {/* Focusable, so PageUp/PageDown, arrows and Home/End scroll the history from the keyboard. */}
      <div
        ref={container}
        tabIndex={0}
        className="absolute inset-0 overflow-y-auto outline-none focus-visible:ring-2 focus-visible:ring-ring/50 focus-visible:ring-inset"
        aria-label="Conversation history"
        role="log"
        aria-live="off"
        data-live={connection === "open"}
      >
        <div ref={setContent} className="flow-root">
          <VirtualHistory
            scroller={container}
            items={state.items}
            objective={state.conversation.objective}
            turns={state.turns}
            approvals={state.approvals}
            questions={state.questions}
            openTurn={openTurn}
            retry={state.retry}
            forkedFrom={forkedFrom}
            restartingItemId={restartingItemId}
            onRestart={onRestart}
            hasOlder={state.hasOlder}
            hasNewer={state.hasNewer}
            loadingOlder={pages.loading === "older"}
            onNearTop={pages.loadOlder}
            onNearBottom={pages.loadNewer}
            target={target}
            hit={findOpen ? hit : null}
          />
          {children}
        </div>
      </div>
      {findOpen && (
        <FindBar
          key={findSeed?.nonce ?? "find"}
          conversationId={id}
          initialQuery={findSeed?.query}
          onJump={(match) => void jump(match)}
          onClear={() => setHit(null)}
          onClose={() => {
            setHit(null);
            onFindOpenChange(false);
            // Back to the button that opens find, not to the page's body.
            document.querySelector<HTMLButtonElement>('header button[aria-label="Find in conversation"]')?.focus();
          }}
        />
      )}
      {(!atBottom || state.hasNewer) && (
        <Button
          variant="outline"
          size="icon-sm"
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full shadow-md"
          aria-label="Scroll to latest"
          onClick={() => toLatest("smooth")}
        >
          <ArrowDownIcon />
        </Button>
      )}
    </div>
  );
}
