import { readFileSync } from "node:fs";

/** One fenced code block of a Markdown file. */
export type FencedBlock = {
  /** The file, as given. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** First word of the info string (`sh`, `json`, `python`, ...). */
  lang: string;
  /** The other words of the info string (`tested`, `response`, `file=verify.py`, ...). */
  tags: ReadonlyArray<string>;
  code: string;
};

/**
 * The fenced blocks of a Markdown file, in order. Blocks whose info string carries the word
 * `tested` are the ones the documentation tests run; a failure names `file:line`.
 */
export function fencedBlocks(file: string): FencedBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = lines[j]!.trimStart();
      if (close.startsWith(fence!) && close.slice(fence!.length).trim() === "") break;
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!);
    }
    const [lang = "", ...tags] = info!.trim().split(/\s+/).filter(Boolean);
    blocks.push({ file, line: i + 1, lang, tags, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** A tag's value: `file=verify.py` → "verify.py" for `tagValue(block, "file")`. */
export function tagValue(block: FencedBlock, name: string): string | undefined {
  const tag = block.tags.find((t) => t.startsWith(`${name}=`));
  return tag?.slice(name.length + 1);
}

/** Where a block is, for failure messages: `docs/api-clients.md:42 (sh)`. */
export function blockLabel(block: FencedBlock, root: string): string {
  const rel = block.file.startsWith(root)
    ? block.file.slice(root.length).replace(/^\//, "")
    : block.file;
  return `${rel}:${block.line} (${block.lang})`;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_~[\]()]/g, "")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of every heading of a markdown document (outside fenced code). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}
