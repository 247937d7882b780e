/**
 * `npm run chart:values-table`: writes the values reference of charts/integration-service/README.md
 * (between its values-table markers) from values.yaml: one row per setting, its default and the
 * comment above it. `--check` writes nothing and exits 1 when the README's table differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMap, parseDocument, type Node } from "yaml";

const CHART = join(resolve(import.meta.dirname, ".."), "charts/integration-service");
export const README = join(CHART, "README.md");
const VALUES = join(CHART, "values.yaml");
const START = "<!-- values-table:start (npm run chart:values-table) -->";
const END = "<!-- values-table:end -->";

interface Row {
  key: string;
  value: unknown;
  text: string;
}

/**
 * The description in a comment: its last paragraph, after any commented-out setting (`tag: 1.0`)
 * that stands in it.
 */
function description(comment: string | null | undefined): string {
  const paragraph = (comment ?? "").split(/\n\s*\n/).at(-1) ?? "";
  const lines = paragraph.split("\n").map((l) => l.trim());
  const lastSetting = lines.findLastIndex((l) => /^[A-Za-z]+: \S+$/.test(l));
  return lines
    .slice(lastSetting + 1)
    .join(" ")
    .trim();
}

/** A setting per scalar, list or empty mapping; a mapping with keys is a section of settings. */
function rows(node: Node | null, path: string[], sectionComment?: string | null): Row[] {
  if (!isMap(node) || node.items.length === 0)
    return [{ key: path.join("."), value: (node as Node | null)?.toJSON() ?? null, text: "" }];
  return node.items.flatMap((pair, i) => {
    const keyNode = pair.key as Node & { value: unknown; commentBefore?: string | null };
    const key = [...path, String(keyNode.value)];
    const comment = keyNode.commentBefore ?? (i === 0 ? sectionComment : undefined);
    const value = pair.value as Node | null;
    if (isMap(value) && value.items.length > 0) return rows(value, key, value.commentBefore);
    return [{ key: key.join("."), value: value?.toJSON() ?? null, text: description(comment) }];
  });
}

const cell = (text: string) =>
  text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** The Markdown table of every setting in values.yaml's text. */
export function valuesTable(yamlText: string): string {
  const doc = parseDocument(yamlText);
  const lines = ["| key | default | description |", "|---|---|---|"];
  for (const row of rows(doc.contents as Node, []))
    lines.push(`| \`${row.key}\` | \`${cell(JSON.stringify(row.value))}\` | ${cell(row.text)} |`);
  return lines.join("\n");
}

/** The README with its table replaced by the one values.yaml gives. */
export function readmeWithTable(readme: string, yamlText: string): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${README} lacks the markers ${START} and ${END}`);
  return `${readme.slice(0, from + START.length)}\n\n${valuesTable(yamlText)}\n\n${readme.slice(to)}`;
}

/** The README as it should read, and as it does. */
export function readmeState(): { expected: string; actual: string } {
  const actual = readFileSync(README, "utf8");
  return { expected: readmeWithTable(actual, readFileSync(VALUES, "utf8")), actual };
}

function main(args: string[]): void {
  const { expected, actual } = readmeState();
  if (args.includes("--check")) {
    if (expected !== actual) {
      console.error(
        `${README}'s values table differs from values.yaml; run npm run chart:values-table`,
      );
      process.exit(1);
    }
    return;
  }
  writeFileSync(README, expected);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
