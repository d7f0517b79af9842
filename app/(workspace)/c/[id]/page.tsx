import type { Metadata } from "next";
import { ConversationView } from "@/components/chat/conversation-view";
import { findConversation, loadConversationPage, signedInRuntime } from "../../workspace-data";

export const dynamic = "force-dynamic";

type Params = Promise<{ id: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  const conversation = await findConversation(await signedInRuntime(), id);
  return { title: conversation?.title ?? "Not found" };
}

export default async function ConversationPage({ params }: { params: Params }) {
  const { id } = await params;
  const data = await loadConversationPage(id);
  return <ConversationView key={id} {...data} />;
}
