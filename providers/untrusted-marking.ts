/**
 * The textual form of "this is data from outside" (issue 16), for the vendors whose tool-result
 * message carries plain text: Anthropic, OpenAI and Ollama. Each already puts the result in its
 * own tool role (a `tool_result` block, a `tool` message), which their guidance treats as content
 * without authority; the envelope is one more boundary the model can see, in the XML-tag form
 * Anthropic recommends for separating documents from instructions, and the delimiter OpenAI's
 * prompting guides use for documents. Gemini gets a structured form instead (google-request.ts).
 */
export { UNTRUSTED_ENVELOPE_TAG, envelopedContent, safeSource } from '../src/core/untrusted-envelope.js';
