// Reads the data part of the Tiltfile: top-level `NAME = <literal>` assignments whose value is a
// Starlark literal (dict, list, string, int, True/False/None, possibly nested). Anything else
// (calls, expressions) is skipped, so the Tiltfile's logic stays free-form.

type Literal = string | number | boolean | null | Literal[] | { [key: string]: Literal };

class Parser {
  pos: number;
  readonly src: string;
  constructor(src: string, pos: number) {
    this.src = src;
    this.pos = pos;
  }
  skip(): void {
    for (;;) {
      const m = /^(\s+|#[^\n]*)/.exec(this.src.slice(this.pos));
      if (!m) return;
      this.pos += m[0].length;
    }
  }
  eat(token: string): boolean {
    this.skip();
    if (!this.src.startsWith(token, this.pos)) return false;
    this.pos += token.length;
    return true;
  }
  expect(token: string): void {
    if (!this.eat(token)) throw new Error(`expected ${token} at ${this.pos}`);
  }
  sequence(close: string, item: () => void): void {
    while (!this.eat(close)) {
      item();
      if (!this.eat(",")) {
        this.expect(close);
        return;
      }
    }
  }
  value(): Literal {
    this.skip();
    const rest = this.src.slice(this.pos);
    const str = /^"((?:[^"\\\n]|\\.)*)"|^'((?:[^'\\\n]|\\.)*)'/.exec(rest);
    if (str) {
      this.pos += str[0].length;
      return (str[1] ?? str[2] ?? "").replace(/\\(.)/g, "$1");
    }
    const num = /^-?\d+\b/.exec(rest);
    if (num) {
      this.pos += num[0].length;
      return Number(num[0]);
    }
    const word = /^(True|False|None)\b/.exec(rest);
    if (word) {
      this.pos += word[0].length;
      return word[1] === "True" ? true : word[1] === "False" ? false : null;
    }
    if (this.eat("[")) {
      const list: Literal[] = [];
      this.sequence("]", () => list.push(this.value()));
      return list;
    }
    if (this.eat("{")) {
      const dict: Record<string, Literal> = {};
      this.sequence("}", () => {
        const key = this.value();
        if (typeof key !== "string") throw new Error(`dict key at ${this.pos} is not a string`);
        this.expect(":");
        dict[key] = this.value();
      });
      return dict;
    }
    throw new Error(`not a literal at ${this.pos}`);
  }
}

/** The top-level literal assignments of a Starlark file, by name. */
export function starlarkLiterals(src: string): Record<string, Literal> {
  const found: Record<string, Literal> = {};
  for (const m of src.matchAll(/^([A-Z][A-Z0-9_]*) = /gm)) {
    const parser = new Parser(src, (m.index ?? 0) + m[0].length);
    try {
      const value = parser.value();
      parser.skip();
      // Only a whole statement counts: `X = "a" + y` is an expression, not data.
      if (
        parser.pos >= src.length ||
        src[parser.pos - 1] === "\n" ||
        /^\n/.test(src.slice(parser.pos))
      )
        found[m[1] as string] = value;
    } catch {
      // Not a literal: part of the Tiltfile's logic.
    }
  }
  return found;
}
