import { describe, expect, it } from "vitest";
import { scanDirectives } from "@/lib/models/directives";

describe("scanDirectives", () => {
  it("finds every kind of directive in order and removes them from the text", () => {
    const result = scanDirectives('[[delay:5]] hello [[stream:3]] there [[reason:2]][[fail:429*2]] [[tool:read_file {"path":"a.txt"}]]');
    expect(result.directives).toEqual([
      { kind: "delay", milliseconds: 5 },
      { kind: "stream", words: 3 },
      { kind: "reason", words: 2 },
      { kind: "fail", status: 429, count: 2 },
      { kind: "tool", name: "read_file", input: '{"path":"a.txt"}' },
    ]);
    expect(result.text).toBe("hello there");
  });

  it("keeps brackets inside the JSON strings of a tool directive", () => {
    const input = 'go [[tool:spawn_agent {"task":"do x [[stream:3]] and ]] too","nested":{"list":[1,[2]]}}]] now';
    const result = scanDirectives(input);
    expect(result.directives).toEqual([
      {
        kind: "tool",
        name: "spawn_agent",
        input: '{"task":"do x [[stream:3]] and ]] too","nested":{"list":[1,[2]]}}',
      },
    ]);
    expect(result.text).toBe("go now");
  });

  it("honours escaped quotes inside JSON strings", () => {
    const result = scanDirectives('[[tool:note {"text":"say \\"]]\\" twice"}]] done');
    expect(result.directives).toEqual([{ kind: "tool", name: "note", input: '{"text":"say \\"]]\\" twice"}' }]);
    expect(result.text).toBe("done");
  });

  it("reads a tool directive without arguments as an empty object", () => {
    expect(scanDirectives("[[tool:list_files]]").directives).toEqual([{ kind: "tool", name: "list_files", input: "{}" }]);
  });

  it("defaults the failure count to one", () => {
    expect(scanDirectives("[[fail:503]]").directives).toEqual([{ kind: "fail", status: 503, count: 1 }]);
  });

  it("leaves unknown or malformed brackets as text", () => {
    const input = "see [[wiki link]] and [[stream:x]] and [[tool:broken {\"a\":]] end";
    const result = scanDirectives(input);
    expect(result.directives).toEqual([]);
    expect(result.text).toBe(input);
  });

  it("collapses the whitespace around a removed directive", () => {
    expect(scanDirectives("  one   [[stream:1]]   two [[reason:1]]three[[delay:1]]four  ").text).toBe("one two threefour");
  });

  it("keeps a line break where a removed directive sat between lines", () => {
    expect(scanDirectives("first line\n[[stream:2]]\nsecond line").text).toBe("first line\nsecond line");
  });
});
