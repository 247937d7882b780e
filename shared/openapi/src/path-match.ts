/**
 * Finds the documented path template a request path belongs to, the way a router would: segment
 * by segment on the raw (still percent-encoded) path, a `{param}` matching one non-empty segment,
 * literal segments winning over parameters (OpenAPI: concrete paths first).
 */
export interface PathMatch {
  template: string;
  params: Record<string, string>;
}

type Segment = { literal: string } | { param: string };

function segmentsOf(template: string): Segment[] {
  return template
    .split("/")
    .slice(1)
    .map((s) => {
      const param = /^\{([^}]+)\}$/.exec(s);
      return param ? { param: param[1] as string } : { literal: s };
    });
}

export function createPathMatcher(
  templates: Iterable<string>,
): (rawPath: string) => PathMatch | undefined {
  const compiled = [...templates]
    .map((template) => ({ template, segments: segmentsOf(template) }))
    // More literal segments first, so `/v1/meta/practices` wins over any `{param}` alternative.
    .sort(
      (a, b) =>
        b.segments.filter((s) => "literal" in s).length -
        a.segments.filter((s) => "literal" in s).length,
    );
  return (rawPath) => {
    const parts = rawPath.split("?")[0]?.split("/").slice(1) ?? [];
    for (const { template, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const fits = segments.every((segment, i) => {
        const part = parts[i] as string;
        if ("literal" in segment) return segment.literal === part;
        params[segment.param] = part;
        return part !== "";
      });
      if (fits) return { template, params };
    }
    return undefined;
  };
}
