/**
 * The skills extension's id, as declared in capabilities (the SDK's `SKILLS_EXTENSION_ID`; a test
 * holds them equal). Its own file so that declaring the extension loads nothing else of skills.
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
