import type { FencedBlock } from "./markdown.ts";

/** A command a guide tells the reader to run, and the response the guide shows after it. */
export interface GuideStep {
  command: FencedBlock;
  response: FencedBlock | undefined;
}

export const isTestedShell = (b: FencedBlock) =>
  (b.lang === "sh" || b.lang === "bash") && b.tags.includes("tested");
export const isResponse = (b: FencedBlock) => b.tags.includes("response");

/** The guide's tested shell blocks in order, each with the `response` block right after it, if any. */
export function guideSteps(blocks: ReadonlyArray<FencedBlock>): GuideStep[] {
  return blocks.flatMap((block, i) => {
    if (!isTestedShell(block)) return [];
    const next = blocks[i + 1];
    return [{ command: block, response: next && isResponse(next) ? next : undefined }];
  });
}

/** Response blocks that do not follow a tested command: nothing would ever check them. */
export function unattachedResponses(blocks: ReadonlyArray<FencedBlock>): FencedBlock[] {
  return blocks.filter((b, i) => isResponse(b) && !(i > 0 && isTestedShell(blocks[i - 1]!)));
}
