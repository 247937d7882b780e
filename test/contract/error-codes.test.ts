/**
 * The error envelope's `error.code` enum is exactly the codes the code answers: every place that
 * answers an error in the envelope (a DomainError and its subclasses, the listener's protocol
 * answers, the error handler's own, the gateway's) is found in the sources, and the codes found
 * equal the enum of both documents, each with the status the list gives it. `DomainError` takes
 * only listed codes (a type), so an unlisted one cannot compile; this finds a listed one nothing
 * answers.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "@svc/errors";
import { REPO_ROOT } from "@svc/manifest";
import { readOpenApiDocument } from "@svc/openapi";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === "node_modules" ? [] : sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  });
}

const SOURCES = ["services", "shared"].flatMap((top) =>
  readdirSync(join(REPO_ROOT, top)).flatMap((name) => {
    const src = join(REPO_ROOT, top, name, "src");
    try {
      return sourceFiles(src);
    } catch {
      return [];
    }
  }),
);

/**
 * Where an envelope error is made, as `(status, code)`: a DomainError or a subclass's `super`,
 * the gateway's `sendError`, the listener's `writeToSocket` and `protocolErrorOf` tuples (status
 * first); `errorBody` and the error handler's opaque answer name the code alone.
 */
const WITH_STATUS = [
  /(?:super|new DomainError|sendError|writeToSocket)\(\s*(?:res,\s*|socket,\s*)?(\d{3}),\s*"([A-Z][A-Z_]*)"/g,
  /\[(\d{3}), "([A-Z][A-Z_]*)", "/g,
];
const CODE_ONLY = [/errorBody\(\s*"([A-Z][A-Z_]*)"/g, /\{ code: "([A-Z][A-Z_]*)", message:/g];

interface Emission {
  code: string;
  status: number | undefined;
  at: string;
}

function emissions(): Emission[] {
  const found: Emission[] = [];
  for (const file of SOURCES) {
    const text = readFileSync(file, "utf8");
    const at = relative(REPO_ROOT, file);
    for (const pattern of WITH_STATUS)
      for (const m of text.matchAll(pattern))
        found.push({ status: Number(m[1]), code: m[2] as string, at });
    for (const pattern of CODE_ONLY)
      for (const m of text.matchAll(pattern))
        found.push({ status: undefined, code: m[1] as string, at });
  }
  return found;
}

const enumOf = (environment: "production" | "sandbox") => {
  const envelope = readOpenApiDocument(environment).components.schemas.ErrorEnvelope as {
    properties: { error: { properties: { code: { enum: string[] } } } };
  };
  return envelope.properties.error.properties.code.enum;
};

describe("error codes", () => {
  const found = emissions();

  it("finds the places that answer errors (the search itself works)", () => {
    const at = new Set(found.map((e) => e.at));
    for (const file of [
      "shared/errors/src/errors.ts",
      "shared/http/src/protocol-errors.ts",
      "shared/http/src/error-handler.ts",
      "services/gateway/src/http/router.ts",
      "services/webhooks/src/domain/subscription-service.ts",
      "services/identity/src/http/idempotency-middleware.ts",
    ])
      expect(at, file).toContain(file);
  });

  it("every code answered is in the list with the status it is answered with", () => {
    for (const { code, status, at } of found) {
      expect(Object.keys(ERROR_CODES), `${at}: ${code}`).toContain(code);
      if (status !== undefined)
        expect(status, `${at}: ${code}`).toBe(ERROR_CODES[code as ErrorCode].status);
    }
  });

  it.each(["production", "sandbox"] as const)(
    "the %s document's envelope enumerates exactly the codes answered",
    (environment) => {
      const answered = [...new Set(found.map((e) => e.code))].sort();
      expect([...enumOf(environment)].sort()).toEqual(answered);
      expect(enumOf(environment)).toEqual(Object.keys(ERROR_CODES));
    },
  );

  it("every code is declared by some operation of production's document (the portal's, behind its cookie, by its tag)", () => {
    const document = readOpenApiDocument("production");
    const text = JSON.stringify([document.paths, document.components.responses, document.tags]);
    for (const code of Object.keys(ERROR_CODES))
      expect(text.includes(`"${code}"`) || text.includes(`\`${code}\``), code).toBe(true);
  });
});
