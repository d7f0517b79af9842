import { describe, expect, it } from "vitest";
import { parseChatLine } from "@/lib/cli/chat-input";

const ID = "01J0000000000000000000000A";

describe("chat input lines", () => {
  it("sends plain lines in auto mode and prefixed ones in the mode they name", () => {
    expect(parseChatLine("  hello there ")).toEqual({ kind: "send", text: "hello there", mode: "auto" });
    expect(parseChatLine("/steer look at the tests")).toEqual({ kind: "send", text: "look at the tests", mode: "steer" });
    expect(parseChatLine("/queue then this")).toEqual({ kind: "send", text: "then this", mode: "queue" });
    expect(parseChatLine("/jump stop, do this")).toEqual({ kind: "send", text: "stop, do this", mode: "jump" });
    expect(parseChatLine("//etc/hosts is odd")).toEqual({ kind: "send", text: "/etc/hosts is odd", mode: "auto" });
    expect(parseChatLine("   ")).toEqual({ kind: "nothing" });
  });

  it("reads the commands and their ids", () => {
    expect(parseChatLine("/interrupt")).toEqual({ kind: "interrupt" });
    expect(parseChatLine(`/approve ${ID}`)).toEqual({ kind: "decide", approvalId: ID, decision: "approve" });
    expect(parseChatLine(`/deny ${ID}`)).toEqual({ kind: "decide", approvalId: ID, decision: "deny" });
    expect(parseChatLine(`/answer ${ID} the blue one`)).toEqual({ kind: "answer", questionId: ID, text: "the blue one" });
    expect(parseChatLine("/quit")).toEqual({ kind: "quit" });
    expect(parseChatLine("/help")).toEqual({ kind: "help" });
  });

  it("explains what is wrong with a malformed command instead of sending it", () => {
    for (const line of ["/steer", "/approve 42", `/answer ${ID}`, "/answer", "/frobnicate"]) {
      expect(parseChatLine(line).kind, line).toBe("invalid");
    }
  });
});
