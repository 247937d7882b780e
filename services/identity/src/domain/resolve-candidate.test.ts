import { describe, expect, it } from "vitest";
import type { LookupKey } from "./identifiers/lookup-keys.ts";
import { decideResolution, keyId } from "./resolve-candidate.ts";

const email: LookupKey = { kind: "email", hash: Buffer.from("e1") };
const phone: LookupKey = { kind: "phone", hash: Buffer.from("p1") };
const known = (entries: Array<[LookupKey, string]>) =>
  new Map(entries.map(([k, c]) => [keyId(k), c]));

describe("decideResolution", () => {
  it("is unresolved with a new candidate when no key is usable", () => {
    expect(decideResolution([], new Map())).toEqual({
      resolution: "unresolved",
      candidateUuid: null,
      linkKeys: [],
    });
  });

  it("creates a candidate answering to every key when none is known", () => {
    expect(decideResolution([email, phone], new Map())).toEqual({
      resolution: "resolved",
      candidateUuid: null,
      linkKeys: [email, phone],
    });
  });

  it("resolves to the one survivor and links the keys it did not know yet", () => {
    expect(decideResolution([email, phone], known([[phone, "B"]]))).toEqual({
      resolution: "resolved",
      candidateUuid: "B",
      linkKeys: [email],
    });
    expect(
      decideResolution(
        [email, phone],
        known([
          [email, "A"],
          [phone, "A"],
        ]),
      ),
    ).toEqual({ resolution: "resolved", candidateUuid: "A", linkKeys: [] });
  });

  it("is ambiguous between two survivors, picks the e-mail's and links nothing", () => {
    expect(
      decideResolution(
        [email, phone],
        known([
          [email, "A"],
          [phone, "B"],
        ]),
      ),
    ).toEqual({ resolution: "ambiguous", candidateUuid: "A", linkKeys: [] });
  });
});
