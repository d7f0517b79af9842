import fc from "fast-check";
import type { MessageKind, Model } from "../model-state";
import type { Real } from "./command-support";
import { AnswerQuestionCommand, DecideApprovalCommand } from "./decision-commands";
import { ArchiveCommand, CompactCommand, CreateCommand, DeleteCommand, ForkCommand, RenameCommand, RewindCommand } from "./conversation-commands";
import { CrashCommand, CrashDuringRunCommand, InspectSubagentsCommand, RestartCommand } from "./lifecycle-commands";
import { EditWaitingCommand, InterruptCommand, SendCommand, SendDuringRunCommand, WithdrawWaitingCommand } from "./message-commands";

const kind = fc.constantFrom<MessageKind>("plain", "plain", "shell", "ask", "spawn");
const conversation = fc.nat({ max: 7 });
const which = fc.nat({ max: 7 });

/** Extra weight (how many more times it is listed) per command name, for a run that leans on some. */
export type CommandWeights = Partial<Record<"crash" | "crashDuringRun" | "restart" | "send" | "fork" | "rewind" | "delete", number>>;

/**
 * Every command the model-based tests draw from, weighted so that sequences of 8–12 steps
 * reach the interesting states (a parked turn with messages waiting on it) often.
 */
export function allCommands(weights: CommandWeights = {}): Array<fc.Arbitrary<fc.AsyncCommand<Model, Real>>> {
  const send = fc.tuple(conversation, fc.constantFrom("auto", "steer", "queue", "jump" as const), kind).map(([c, mode, k]) => new SendCommand(c, mode, k));
  const decide = fc.tuple(which, fc.constantFrom("approve", "deny" as const)).map(([w, decision]) => new DecideApprovalCommand(w, decision));
  const weighted = {
    send,
    crash: fc.constant(null).map(() => new CrashCommand()),
    crashDuringRun: fc.tuple(conversation, fc.boolean()).map(([c, queued]) => new CrashDuringRunCommand(c, queued)),
    restart: fc.constant(null).map(() => new RestartCommand()),
    fork: conversation.map((c) => new ForkCommand(c)),
    rewind: fc.tuple(conversation, which, fc.boolean()).map(([c, w, restore]) => new RewindCommand(c, w, restore)),
    delete: conversation.map((c) => new DeleteCommand(c)),
  };
  const extra = Object.entries(weights).flatMap(([name, times]) => Array.from({ length: times ?? 0 }, () => weighted[name as keyof typeof weighted]));
  return [
    kind.map((k) => new CreateCommand(k)),
    kind.map((k) => new CreateCommand(k)),
    send,
    send,
    fc.tuple(conversation, fc.constantFrom("steer", "queue", "jump", "interrupt" as const), kind).map(([c, action, k]) => new SendDuringRunCommand(c, action, k)),
    fc.tuple(conversation, which, fc.constantFrom("text", "steer", "queue", "jump" as const)).map(([c, w, change]) => new EditWaitingCommand(c, w, change)),
    fc.tuple(conversation, which).map(([c, w]) => new WithdrawWaitingCommand(c, w)),
    conversation.map((c) => new InterruptCommand(c)),
    decide,
    decide,
    fc.tuple(which, fc.constantFrom("yes", "no" as const)).map(([w, answer]) => new AnswerQuestionCommand(w, answer)),
    conversation.map((c) => new RenameCommand(c)),
    fc.tuple(conversation, fc.boolean()).map(([c, archived]) => new ArchiveCommand(c, archived)),
    weighted.fork,
    weighted.rewind,
    conversation.map((c) => new CompactCommand(c)),
    weighted.delete,
    conversation.map((c) => new InspectSubagentsCommand(c)),
    weighted.crash,
    weighted.crashDuringRun,
    weighted.restart,
    ...extra,
  ];
}
