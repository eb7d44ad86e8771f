/** readline's answer to a Tab: the candidates, and the part of the line they complete. */
export type Completion = [string[], string];
