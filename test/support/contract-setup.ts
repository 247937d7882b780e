/**
 * vitest setup file (vitest.config.ts): contract tests for every suite. Every response a test
 * process receives through fetch from a loopback server is checked against the checked-in OpenAPI
 * document (@svc/testing contract.ts); a test during which one did not match fails here, naming
 * the request, the status and what differs.
 */
import { appendFileSync } from "node:fs";
import { afterAll, afterEach } from "vitest";
import { installFetchContractValidation } from "@svc/testing/contract-fetch";

const contract = installFetchContractValidation();

async function failOnViolations(): Promise<void> {
  const violations = await contract.takeViolations();
  if (violations.length > 0) throw new Error(violations.join("\n\n"));
}

afterEach(failOnViolations);
// Responses received in beforeAll/afterAll hooks, after the last test.
afterAll(failOnViolations);

// CONTRACT_COVERAGE_FILE=path: each test file appends what it checked (one JSON line), to see which
// documented operations and statuses the suites exercise.
const coverageFile = process.env.CONTRACT_COVERAGE_FILE;
if (coverageFile)
  afterAll(() => appendFileSync(coverageFile, `${JSON.stringify(contract.takeCoverage())}\n`));
