import { posix } from "node:path";
import ts from "typescript";
import {
  COMPOSITION_ROOTS,
  DOMAIN_FORBIDDEN_PACKAGES,
  EXEMPT_FROM_FOLDER_RULES,
  SERVICE_FOLDERS,
} from "./dependency-rules.ts";

/** A source file by its path from the repository root (posix separators) and its text. */
export type SourceFile = { path: string; text: string };

type Folder = keyof typeof SERVICE_FOLDERS;

/**
 * Module specifiers a file imports, re-exports or loads dynamically (`import("...")` with a
 * string literal); text inside strings and comments is not an import.
 */
export function importsIn(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The package a bare specifier names: `@scope/name`, `name` or `node:module`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function forbiddenInDomain(pkg: string): boolean {
  return DOMAIN_FORBIDDEN_PACKAGES.packages.some((entry) =>
    entry.endsWith("/*") ? pkg.startsWith(entry.slice(0, -1)) : pkg === entry,
  );
}

function isFolder(name: string): name is Folder {
  return Object.hasOwn(SERVICE_FOLDERS, name);
}

/** Why `folder` may not import the file at `target` (a path inside src/), or undefined. */
function refusal(folder: Folder, target: string): string | undefined {
  if (target.startsWith("../"))
    return `${folder} may not import outside src/ (tests and benchmarks import src/, not the reverse)`;
  if (!target.includes("/"))
    return `${folder} may not import ${target} (a composition root: configuration and dependencies reach ${folder} as parameters)`;
  const theirs = target.split("/")[0]!;
  if (
    theirs === folder ||
    (SERVICE_FOLDERS[folder].mayImport as readonly string[]).includes(theirs)
  )
    return undefined;
  return `${folder} may not import ${theirs} (${SERVICE_FOLDERS[folder].why})`;
}

/**
 * Every folder rule of dependency-rules.ts broken by the src/ files of the service in
 * `serviceDir` (e.g. `services/webhooks`), one line each naming the file, the import and the rule.
 */
export function folderViolations(serviceDir: string, files: ReadonlyArray<SourceFile>): string[] {
  const src = posix.join(serviceDir, "src");
  const found: string[] = [];
  for (const file of files) {
    const inside = posix.relative(src, file.path);
    if (EXEMPT_FROM_FOLDER_RULES.test(inside) || COMPOSITION_ROOTS.some((r) => r.test(inside)))
      continue;
    const folder = inside.split("/")[0]!;
    if (!isFolder(folder)) {
      found.push(
        `${file.path}: src/${folder}/ is no folder of SERVICE_FOLDERS in dependency-rules.ts`,
      );
      continue;
    }
    for (const specifier of importsIn(file.text)) {
      const why = specifier.startsWith(".")
        ? refusal(folder, posix.relative(src, posix.join(posix.dirname(file.path), specifier)))
        : folder === "domain" && forbiddenInDomain(packageName(specifier))
          ? `domain may not import ${packageName(specifier)} (${DOMAIN_FORBIDDEN_PACKAGES.why})`
          : undefined;
      if (why) found.push(`${file.path} imports ${specifier}: ${why}`);
    }
  }
  return found;
}
