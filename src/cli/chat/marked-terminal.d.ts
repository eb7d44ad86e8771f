/**
 * Types for marked-terminal 7, which ships none (and @types/marked-terminal pins marked < 12).
 * Only what markdown.ts uses; each style option is a function from text to styled text.
 */
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  type Paint = (text: string) => string;

  export interface TerminalRendererOptions {
    code?: Paint;
    blockquote?: Paint;
    html?: Paint;
    heading?: Paint;
    firstHeading?: Paint;
    hr?: Paint;
    listitem?: Paint;
    table?: Paint;
    paragraph?: Paint;
    strong?: Paint;
    em?: Paint;
    codespan?: Paint;
    del?: Paint;
    link?: Paint;
    href?: Paint;
    text?: Paint;
    unescape?: boolean;
    emoji?: boolean;
    width?: number;
    showSectionPrefix?: boolean;
    reflowText?: boolean;
    tab?: number | string;
    tableOptions?: Record<string, unknown>;
  }

  export function markedTerminal(
    options?: TerminalRendererOptions,
    highlightOptions?: Record<string, unknown>,
  ): MarkedExtension;
}
