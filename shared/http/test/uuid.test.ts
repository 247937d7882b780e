import { describe, expect, it } from "vitest";
import { ValidationError } from "@svc/errors";
import { parseQuery, q } from "../src/query.ts";
import { normaliseUuid, uuidParam, UUID_PATTERN } from "../src/uuid.ts";

const LOWER = "8292d569-11d3-43fc-9948-0981590e9514";

describe("the uuid rule", () => {
  it("reads any case as lower case", () => {
    expect(uuidParam(LOWER.toUpperCase(), "x")).toBe(LOWER);
    expect(uuidParam("8292D569-11d3-43FC-9948-0981590e9514", "x")).toBe(LOWER);
    expect(parseQuery({ id: q.uuid() }, { id: LOWER.toUpperCase() })).toEqual({ id: LOWER });
  });

  it.each([
    "",
    `${LOWER} `,
    `{${LOWER}}`,
    LOWER.replace(/-/g, ""),
    `urn:uuid:${LOWER}`,
    LOWER.replace("8", "g"),
    `${LOWER}\n`,
  ])("refuses %j with 422 naming the parameter", (value) => {
    expect(normaliseUuid(value)).toBeNull();
    expect(() => uuidParam(value, "candidate_uuid")).toThrow(ValidationError);
    try {
      parseQuery({ candidate_uuid: q.uuid() }, { candidate_uuid: value });
      expect.unreachable();
    } catch (err) {
      expect((err as ValidationError).details).toEqual([
        { field: "candidate_uuid", message: "must be a UUID" },
      ]);
    }
  });

  it("states in its JSON Schema pattern exactly what it accepts", () => {
    const pattern = new RegExp(UUID_PATTERN);
    expect(pattern.test(LOWER.toUpperCase())).toBe(true);
    expect(pattern.test(LOWER.replace("8", "g"))).toBe(false);
  });
});
