import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/api/openapi";
import { apiRouteFiles } from "../../support/route-files";

const run = promisify(execFile);
const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const bin = (relative: string) => path.join(PROJECT_ROOT, "node_modules", relative);

type Document = { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> }>> };
const document = openApiDocument() as Document;

let directory: string;
let documentFile: string;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-openapi-"));
  documentFile = path.join(directory, "openapi.json");
  fs.writeFileSync(documentFile, JSON.stringify(document, null, 2));
});

afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("the API document", () => {
  it("lists every route file under app/api with exactly the methods it exports, and nothing else", () => {
    const served = apiRouteFiles().map(({ route, methods }) => [route, [...methods].sort()]);
    const documented = Object.entries(document.paths)
      .map(([route, operations]) => [route, Object.keys(operations).sort()])
      .sort(([a], [b]) => String(a).localeCompare(String(b)));
    expect(documented).toEqual(served);
  });

  it("declares every path parameter of every operation, and an error answer with the Error schema", () => {
    for (const [route, operations] of Object.entries(document.paths)) {
      const names = [...route.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      for (const [method, operation] of Object.entries(operations)) {
        const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
        expect(declared, `${method} ${route}`).toEqual(names);
        const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
        expect(errors.length, `${method} ${route}`).toBeGreaterThan(0);
        for (const status of errors) expect(JSON.stringify(operation.responses[status])).toContain("#/components/schemas/Error");
      }
    }
  });

  it("takes its query parameters from the schemas the routes parse with", () => {
    const names = (route: string) => (document.paths[route].get.parameters ?? []).filter((parameter) => parameter.in === "query").map((parameter) => parameter.name);
    expect(names("/api/conversations")).toEqual(["archived", "q", "cursor", "limit", "sort", "direction", "model"]);
    expect(names("/api/conversations/{id}/items")).toEqual(["session", "after", "limit", "before", "tail", "around", "q"]);
    expect(names("/api/approvals")).toEqual(["status"]);
    expect(names("/api/conversations/{id}/artifacts/{artifactId}")).toEqual(["page"]);
  });

  it("passes `redocly lint` with the recommended rules without one error", async () => {
    const { stdout } = await run(process.execPath, [bin("@redocly/cli/bin/cli.js"), "lint", documentFile, "--extends=recommended", "--format=json"], {
      cwd: directory,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as { totals: { errors: number }; problems: Array<{ ruleId: string; message: string; severity: string }> };
    expect(report.problems.filter((problem) => problem.severity === "error")).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it("generates a client with openapi-typescript whose calls to five routes type-check (and wrong calls do not)", async () => {
    await run(process.execPath, [bin("openapi-typescript/bin/cli.js"), documentFile, "-o", path.join(directory, "atrium-api.ts")], { cwd: directory });
    fs.copyFileSync(path.join(import.meta.dirname, "fixtures", "typed-client.ts"), path.join(directory, "typed-client.ts"));
    fs.writeFileSync(
      path.join(directory, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "esnext", moduleResolution: "bundler", lib: ["ES2023", "dom", "dom.iterable"], types: [], skipLibCheck: true },
        files: ["typed-client.ts"],
      }),
    );
    const compiled = await run(process.execPath, [bin("typescript/bin/tsc"), "-p", directory], { cwd: directory }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(compiled).toBe("");
  });
});
