import Link from "next/link";
import { PageHeader } from "@/components/sidebar/page-header";
import { Button } from "@/components/ui/button";

export default function ConversationNotFound() {
  return (
    <>
      <PageHeader title="Not found" />
      <div className="flex flex-1 flex-col items-center justify-center gap-3 p-8 text-center">
        <h2 className="text-lg font-semibold">This conversation is not here</h2>
        <p className="max-w-sm text-sm text-muted-foreground">It may have been deleted, or it lives on another machine.</p>
        <Button asChild variant="outline">
          <Link href="/new">Start a new chat</Link>
        </Button>
      </div>
    </>
  );
}
