/**
 * Where a partly typed URI stands against an RFC 6570 URI template: still in its fixed text, or in
 * a variable (whose value is then asked of the server). Hand-written: the SDK's UriTemplate only
 * matches whole URIs. Simple expressions only (`{id}`, `{+path}`); an operator such as `{?q}`
 * ends the match, since its expansion adds text of its own.
 */

export type TemplateMatch =
  | { readonly kind: 'none' }
  /** The partial URI is a prefix of the template's text before its next variable. */
  | { readonly kind: 'literal'; readonly completion: string }
  /** The partial URI ends in variable `name`, typed as far as `value`, after `before`. */
  | {
      readonly kind: 'variable';
      readonly name: string;
      readonly value: string;
      readonly before: string;
      /** Values of the variables before this one. */
      readonly given: Readonly<Record<string, string>>;
    };

type Segment = { readonly literal: string } | { readonly variable: string };

export function matchTemplate(uriTemplate: string, partial: string): TemplateMatch {
  const segments = parseSegments(uriTemplate);
  if (segments === undefined) return { kind: 'none' };
  const given: Record<string, string> = {};
  let position = 0;
  for (const [index, segment] of segments.entries()) {
    const rest = partial.slice(position);
    if ('literal' in segment) {
      if (rest.length < segment.literal.length) {
        return segment.literal.startsWith(rest)
          ? { kind: 'literal', completion: partial + segment.literal.slice(rest.length) }
          : { kind: 'none' };
      }
      if (!rest.startsWith(segment.literal)) return { kind: 'none' };
      position += segment.literal.length;
      continue;
    }
    // A variable runs to the next literal's text (or to the end of the URI).
    const next = segments[index + 1];
    const stop = next !== undefined && 'literal' in next ? rest.indexOf(next.literal) : -1;
    if (stop < 0) {
      return {
        kind: 'variable',
        name: segment.variable,
        value: rest,
        before: partial.slice(0, position),
        given,
      };
    }
    given[segment.variable] = rest.slice(0, stop);
    position += stop;
  }
  return { kind: 'none' };
}

function parseSegments(uriTemplate: string): Segment[] | undefined {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of uriTemplate.matchAll(/\{([^}]*)\}/g)) {
    const expression = match[1] ?? '';
    if (!/^\+?[A-Za-z0-9_.%]+$/.test(expression)) {
      // An operator expression: stop before it, completing the text up to there only.
      if (match.index > last) segments.push({ literal: uriTemplate.slice(last, match.index) });
      return segments;
    }
    if (match.index > last) segments.push({ literal: uriTemplate.slice(last, match.index) });
    segments.push({ variable: expression.replace(/^\+/, '') });
    last = match.index + match[0].length;
  }
  if (last < uriTemplate.length) segments.push({ literal: uriTemplate.slice(last) });
  return segments.length === 0 ? undefined : segments;
}
