import { AlertTriangleIcon, BanIcon, CircleSlashIcon, XCircleIcon } from "lucide-react";
import type { Item } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";

/** Badges for the outcomes worth a second look; completed and streaming items show none. */
export function ItemStatusBadge({ status }: { status: Item["status"] }) {
  switch (status) {
    case "interrupted":
      return (
        <Badge variant="secondary">
          <CircleSlashIcon />
          interrupted
        </Badge>
      );
    case "failed":
      return (
        <Badge variant="destructive">
          <XCircleIcon />
          failed
        </Badge>
      );
    case "denied":
      return (
        <Badge variant="destructive">
          <BanIcon />
          denied
        </Badge>
      );
    case "unknown":
      return (
        <Badge variant="warning">
          <AlertTriangleIcon />
          outcome unknown
        </Badge>
      );
    default:
      return null;
  }
}
