import Link from "next/link";
import { MessageSquarePlusIcon } from "lucide-react";
import { PageHeader } from "@/components/sidebar/page-header";
import { Button } from "@/components/ui/button";
import { assertSignedIn } from "./workspace-data";

export default async function HomePage() {
  await assertSignedIn();
  return (
    <>
      <PageHeader title="Atrium" />
      <div className="flex flex-1 flex-col items-center justify-center gap-4 p-8 text-center">
        <div className="flex size-12 items-center justify-center rounded-xl border bg-card shadow-sm">
          <MessageSquarePlusIcon className="size-5 text-muted-foreground" />
        </div>
        <div className="grid gap-1.5">
          <h2 className="text-xl font-semibold tracking-tight">Pick a conversation or start a new one</h2>
          <p className="max-w-md text-sm text-muted-foreground">
            Conversations keep running on the server when you close the tab. Every open tab sees the same live turn.
          </p>
        </div>
        <Button asChild>
          <Link href="/new">
            <MessageSquarePlusIcon />
            New chat
          </Link>
        </Button>
      </div>
    </>
  );
}
