/**
 * The fakes' token count of a request body, for enforcing a context limit the way the vendors do.
 * A vendor counts with its own tokenizer; the fakes count four characters of the JSON body a
 * token, which is what matters for the tests: a request over the limit is refused, one under is not.
 */
export function countFakeTokens(body: unknown): number {
  return Math.ceil(JSON.stringify(body ?? null).length / 4);
}
