import type { Metadata } from "next";
import { ConversationView } from "@/components/chat/conversation-view";
import { getRuntime } from "@/lib/engine/runtime-registry";
import { findConversation, loadConversationPage } from "../../workspace-data";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  const conversation = findConversation(getRuntime(), id);
  return { title: conversation?.title ?? "Not found" };
}

export default async function ConversationPage({ params }: { params: Params }) {
  const { id } = await params;
  const data = loadConversationPage(id);
  return <ConversationView key={id} {...data} />;
}
