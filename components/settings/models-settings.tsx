import type { ModelInfo } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

const number = new Intl.NumberFormat("en-US");

const PROVIDER_LABEL: Record<string, string> = {
  offline: "Offline (built in)",
  "openai-compatible": "OpenAI-compatible",
  openai: "OpenAI",
  anthropic: "Anthropic",
};

function takes(model: ModelInfo): string {
  const kinds = model.attachments ?? [];
  if (kinds.length === 0) return "text only";
  return kinds.map((kind) => (kind === "image" ? "images" : "PDF")).join(", ");
}

/** Settings → Models: the models config.json lists, read-only (edit config.json to change them). */
export function ModelsSettings({ models, defaultModel }: { models: ModelInfo[]; defaultModel: string }) {
  return (
    <div className="mx-auto grid w-full max-w-4xl gap-3 overflow-y-auto p-4 md:p-6">
      <div>
        <h2 className="text-sm font-semibold">Models</h2>
        <p className="text-xs text-muted-foreground">From config.json (models, defaultModel). New chats start with the default; each conversation can switch.</p>
      </div>
      <ModelCards models={models} defaultModel={defaultModel} />
      <div className="overflow-x-auto rounded-lg border max-sm:hidden">
        <Table aria-label="Models">
          <TableHeader>
            <TableRow>
              <TableHead>Model</TableHead>
              <TableHead>Provider</TableHead>
              <TableHead className="text-right">Context window</TableHead>
              <TableHead className="text-right">Max output</TableHead>
              <TableHead>Attachments</TableHead>
              <TableHead>Status</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {models.map((model) => (
              <TableRow key={model.id} data-testid={`model-${model.id}`}>
                <TableCell className="font-medium">
                  {model.id}
                  {model.id === defaultModel && (
                    <Badge variant="secondary" className="ml-2">
                      default
                    </Badge>
                  )}
                </TableCell>
                <TableCell>{PROVIDER_LABEL[model.provider] ?? model.provider}</TableCell>
                <TableCell className="text-right tabular-nums">{number.format(model.contextWindow)}</TableCell>
                <TableCell className="text-right tabular-nums">{number.format(model.maxOutputTokens)}</TableCell>
                <TableCell>{takes(model)}</TableCell>
                <TableCell className="whitespace-normal">
                  {model.available ? <Badge variant="success">ready</Badge> : <Badge variant="warning">no API key</Badge>}
                  {model.notice && <p className="mt-1 max-w-sm text-xs text-muted-foreground">{model.notice}</p>}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </div>
    </div>
  );
}

/** On a phone the table's columns do not fit: one card per model. */
function ModelCards({ models, defaultModel }: { models: ModelInfo[]; defaultModel: string }) {
  return (
    <ul aria-label="Models" className="grid gap-2 sm:hidden">
      {models.map((model) => (
        <li key={model.id} className="grid gap-1 rounded-lg border p-3 text-sm">
          <p className="flex items-center gap-2 font-medium">
            {model.id}
            {model.id === defaultModel && <Badge variant="secondary">default</Badge>}
            {model.available ? <Badge variant="success">ready</Badge> : <Badge variant="warning">no API key</Badge>}
          </p>
          <p className="text-muted-foreground">
            {PROVIDER_LABEL[model.provider] ?? model.provider} · window {number.format(model.contextWindow)} · output {number.format(model.maxOutputTokens)} · {takes(model)}
          </p>
          {model.notice && <p className="text-xs text-muted-foreground">{model.notice}</p>}
        </li>
      ))}
    </ul>
  );
}
