/**
 * The untrusted-content detector: flags tool output (and resources, prompts, sampling messages)
 * that looks like a prompt injection, and makes hidden characters visible before the model sees
 * the text.
 *
 * Hand-written rather than a library: the npm packages for this either call a hosted model (which
 * would send every tool result to a third party) or are unmaintained lists of phrases. The rules
 * below are the families seen in public injection examples (see test/fixtures/injection/), each
 * written narrowly enough to stay quiet on code, documentation and logs — the measured rates are in
 * docs/untrusted-content.md and held by test/unit/safety-injection.test.ts.
 */

/** What a rule found. */
export type FindingKind =
  'ignore-instructions' | 'addressed-to-model' | 'role-marker' | 'hidden-unicode' | 'exfiltration-link';

export interface Finding {
  readonly kind: FindingKind;
  /** One line for the user, e.g. `"ignore previous instructions"`. */
  readonly description: string;
  /** Where in the text (UTF-16 offsets), for redaction. */
  readonly start: number;
  readonly end: number;
}

interface Rule {
  readonly kind: FindingKind;
  readonly label: string;
  readonly pattern: RegExp;
}

const QUALIFIER = String.raw`(?:all|any|the|your|my|these|those|every|previous|prior|above|earlier|preceding|former|original|initial|system|developer|existing|other|old)`;
const ORDERS = String.raw`(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|constraints|commands|orders|context|programming|restrictions)`;

const RULES: readonly Rule[] = [
  {
    kind: 'ignore-instructions',
    label: 'tells the model to ignore its instructions',
    pattern: new RegExp(
      String.raw`\b(?:ignore|disregard|forget|abandon|neglect)\s+(?:(?:all|any|of|about|the|your|my|these|those|everything|what)\s+)*(?:${QUALIFIER}\s+)+${ORDERS}\b`,
      'giu',
    ),
  },
  {
    kind: 'ignore-instructions',
    label: 'tells the model to ignore what came before',
    pattern:
      /\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+)?(?:above|previous|prior|preceding|earlier)(?:\s+(?:text|directions|instructions|input|messages?|conversation|prompt|content))?\s*(?:and\b|[.,;:!]|$)/gimu,
  },
  {
    kind: 'ignore-instructions',
    label: 'gives the model new instructions',
    pattern:
      /\b(?:new|updated|real|actual|revised|additional|secret|hidden)\s+(?:system\s+)?(?:instructions?|directives?)\s*:|\byour\s+(?:new|real|actual|true)\s+(?:task|role|instructions?|goal|purpose|objective)\b/giu,
  },
  {
    kind: 'ignore-instructions',
    label: 'asks for the model’s instructions',
    pattern:
      /\b(?:show|reveal|print|repeat|output|leak|tell\s+me)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?your\s+(?:system\s+|initial\s+|original\s+|hidden\s+|secret\s+)?(?:prompt|instructions)\b/giu,
  },
  {
    kind: 'ignore-instructions',
    label: 'tries to change the model’s role',
    pattern:
      /\b(?:you\s+are\s+now\s+(?:a|an|in|the|no\s+longer|DAN|free)|from\s+now\s+on,?\s+(?:you|act|respond|always|only)|act\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:a|an)\s+(?:unrestricted|unfiltered|jailbroken)|(?:enter|enable|activate)\s+(?:developer|god|DAN|jailbreak|admin)\s+mode|pretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+(?:rules|restrictions|guidelines))/giu,
  },
  {
    kind: 'addressed-to-model',
    label: 'addresses the AI assistant directly',
    pattern:
      /(?:\b(?:attention|note|message|instructions?|important(?:\s+message)?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?(?:ai|a\.i\.|assistant|llm|language\s+model|chatbot|agent|model|claude|chatgpt|gpt|gemini|copilot)s?\b|\b(?:dear|hey|hi|hello)\s+(?:ai|assistant|llm|claude|chatgpt|gpt|gemini|copilot|agent)\b|\b(?:ai|llm)\s+(?:assistant|agent|model)s?\s*(?:[:,]|reading|processing|summari[sz]ing)|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|agent)\b)/giu,
  },
  {
    kind: 'exfiltration-link',
    label: 'asks for the conversation to be copied out',
    pattern:
      /\b(?:summary|words|contents?|history|transcript|messages)\s+of\s+(?:this|the|our)\s+(?:conversation|chat)\b|\b(?:send|post|upload|forward)\s+(?:the\s+)?(?:full\s+|whole\s+|entire\s+)?(?:chat|conversation)\s+(?:history|log|transcript)\b/giu,
  },
  {
    kind: 'addressed-to-model',
    label: 'asks the model to hide something from the user',
    pattern:
      /\b(?:do\s+not|don['\u2019]t|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|reveal(?:ing)?|show(?:ing)?|alert(?:ing)?|notify(?:ing)?)\s+(?:this\s+(?:to\s+)?|it\s+(?:to\s+)?|anything\s+(?:to\s+)?)?(?:the\s+)?user\b|\bdo\s+not\s+mention\s+that\s+you\b/giu,
  },
  {
    kind: 'role-marker',
    label: 'contains chat-template role or turn markers',
    pattern:
      /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|system_prompt|assistant|im_start|function_results|tool_result|user_query|instructions|important)>|\[(?:system|assistant)\]\(#|\n\n(?:Human|Assistant):/giu,
  },
  {
    kind: 'role-marker',
    label: 'starts a line as the system or the assistant',
    // Case-sensitive and followed by a sentence: "system: linux" in a log or a type is not a turn.
    pattern:
      /(?:^|\n)[ \t]*(?:#{1,4}[ \t]*)?(?:[Ss]ystem|SYSTEM|[Aa]ssistant|ASSISTANT|Human|HUMAN)(?:[ \t]+(?:[Mm]essage|[Pp]rompt))?[ \t]*:[ \t]+[A-Z][a-z']*(?:[ \t]+[\w'\u2019]+){2}/gu,
  },
  {
    kind: 'exfiltration-link',
    label: 'has a markdown image or link that could carry data to another host',
    pattern:
      /!\[[^\]\n]*\]\(\s*<?https?:\/\/[^)\s]*\?[^)\s]*=(?:\{|%7B|\[|\$|<|DATA|SECRET|INFO|SUMMARY|CONVERSATION|HISTORY|CODE|KEY|TOKEN|PASSWORD)|\[[^\]\n]*\]\(\s*<?https?:\/\/[^)\s]*[?&](?:secret|password|api_?key|token|data|history|conversation)=(?:\{|%7B|\[|\$|<|[a-z]+\))|<img\s[^>]*src\s*=\s*["']?https?:\/\/[^"'\s>]*\?[^"'\s>]*=(?:\{|%7B|\[|\$|<)/gu,
  },
];

/**
 * Characters that hide text: Unicode tag characters (they spell ASCII invisibly), bidirectional
 * controls (they reorder what a person reads), zero-width characters and word joiners. A zero-width
 * joiner between emoji (👩‍💻) and a byte-order mark at the very start are ordinary and left alone.
 */
const TAG_CHARACTERS = /[\u{E0000}-\u{E007F}]+/gu;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const ZERO_WIDTH = /[\u200b-\u200d\u2060-\u2064\u180e\ufeff]/gu;

/** Every finding in `text`, in order of position. */
export function detectInjection(text: string): Finding[] {
  const findings: Finding[] = [];
  for (const rule of RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      findings.push({
        kind: rule.kind,
        description: `${rule.label}: "${preview(match[0])}"`,
        start: match.index,
        end: match.index + match[0].length,
      });
    }
  }
  findings.push(...hiddenCharacterFindings(text));
  return findings.sort((a, b) => a.start - b.start);
}

function hiddenCharacterFindings(text: string): Finding[] {
  const findings: Finding[] = [];
  for (const match of text.matchAll(TAG_CHARACTERS)) {
    findings.push({
      kind: 'hidden-unicode',
      description: `hides text in Unicode tag characters: "${preview(decodeTags(match[0]))}"`,
      start: match.index,
      end: match.index + match[0].length,
    });
  }
  const bidi = [...text.matchAll(BIDI_CONTROLS)];
  if (bidi.length > 0) {
    findings.push({
      kind: 'hidden-unicode',
      description: `has ${bidi.length} bidirectional control character${bidi.length === 1 ? '' : 's'} (reorders what is read)`,
      start: bidi[0]?.index ?? 0,
      end: (bidi[0]?.index ?? 0) + 1,
    });
  }
  const zeroWidth = [...text.matchAll(ZERO_WIDTH)].filter((match) => !isOrdinaryInvisible(text, match.index));
  if (zeroWidth.length > 0) {
    findings.push({
      kind: 'hidden-unicode',
      description: `has ${zeroWidth.length} zero-width character${zeroWidth.length === 1 ? '' : 's'}`,
      start: zeroWidth[0]?.index ?? 0,
      end: (zeroWidth[0]?.index ?? 0) + 1,
    });
  }
  return findings;
}

const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F/u;

function isOrdinaryInvisible(text: string, index: number): boolean {
  const character = text[index];
  if (character === '\ufeff') return index === 0;
  if (character !== '\u200d') return false;
  const before = String.fromCodePoint(text.codePointAt(index - 1) ?? 0);
  const beforePair = index >= 2 ? text.slice(index - 2, index) : '';
  const after = String.fromCodePoint(text.codePointAt(index + 1) ?? 0);
  return (PICTOGRAPH.test(before) || PICTOGRAPH.test(beforePair)) && PICTOGRAPH.test(after);
}

/**
 * The text with hidden characters removed or made visible: tag characters are shown as what they
 * spell (`⟦hidden: …⟧`), bidi controls and zero-width characters are removed (a joiner between
 * emoji and a leading byte-order mark stay).
 */
export function revealHiddenCharacters(text: string): string {
  if (!/[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u{E0000}-\u{E007F}]/u.test(text)) {
    return text;
  }
  return text
    .replace(TAG_CHARACTERS, (tags) => `⟦hidden: ${decodeTags(tags)}⟧`)
    .replace(BIDI_CONTROLS, '')
    .replace(ZERO_WIDTH, (character, index: number, whole: string) =>
      isOrdinaryInvisible(whole, index) ? character : '',
    );
}

/** Tag characters U+E0020–U+E007E mirror ASCII; the rest (begin/cancel tags) show as nothing. */
function decodeTags(tags: string): string {
  return Array.from(tags)
    .map((character) => {
      const ascii = (character.codePointAt(0) ?? 0) - 0xe0000;
      return ascii >= 0x20 && ascii < 0x7f ? String.fromCharCode(ascii) : '';
    })
    .join('');
}

/** The text with every finding's span replaced by a marker. */
export function redactFindings(text: string, findings: readonly Finding[]): string {
  let result = '';
  let position = 0;
  for (const finding of [...findings].sort((a, b) => a.start - b.start)) {
    if (finding.end <= position) continue;
    result += text.slice(position, Math.max(position, finding.start));
    result += `[removed by mcphost: ${finding.kind}]`;
    position = finding.end;
  }
  return result + text.slice(position);
}

function preview(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > 60 ? `${clean.slice(0, 59)}…` : clean;
}
