/**
 * A `SKILL.md` as the Agent Skills format writes it: YAML front matter between `---` lines with at
 * least `name` and `description`, then the markdown body. Local skills are read with this; server
 * skills are parsed and checked by the SDK's SkillsClient (which compares the file's front matter
 * with the server's entry).
 *
 * The YAML goes through the `yaml` package (already a dependency) rather than a hand-written
 * reader: front matter may quote, fold and nest like any YAML. It is imported when a file is parsed,
 * not with this module: every run builds the skill library, and loading `yaml` (~70 modules) cost
 * each run ~40 ms of CPU and ~8 MB on Node 20, skills or not (docs/design.md, "The start path").
 */

/** The name rule of the Agent Skills format (and of SEP-2640): lower case letters, digits, single hyphens. */
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;

/** The front matter block: `---`, YAML, `---` on a line of its own (BOM and CRLF allowed). */
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/** A parsed SKILL.md, or why it is not one. */
export type SkillFileParse =
  | {
      readonly kind: 'skill';
      readonly name: string;
      readonly description: string;
      /** The whole front matter, for anything beyond name and description (`license`, `metadata`…). */
      readonly frontMatter: Readonly<Record<string, unknown>>;
      /** The markdown after the front matter. */
      readonly body: string;
    }
  | { readonly kind: 'invalid'; readonly problem: string };

/**
 * Parses a SKILL.md. `folderName`, when given, must equal the `name` (the format's rule: a skill is
 * named by its folder), so two files cannot claim each other's name.
 */
export async function parseSkillFile(text: string, folderName?: string): Promise<SkillFileParse> {
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FRONT_MATTER.exec(unmarked);
  if (match === null) return invalid('no front matter (the file must start with a "---" line)');
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(match[1] ?? '');
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return invalid(`the front matter is not YAML: ${detail ?? ''}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return invalid('the front matter is not a YAML mapping');
  }
  const frontMatter = data as Record<string, unknown>;
  const { name, description } = frontMatter;
  if (typeof name !== 'string' || name === '') return invalid('"name" is missing or not a string');
  if (name.length > MAX_NAME_LENGTH || !SKILL_NAME.test(name)) {
    return invalid(
      `"name" ${JSON.stringify(name)} must be 1-${MAX_NAME_LENGTH} lower-case letters, digits and single hyphens`,
    );
  }
  if (folderName !== undefined && name !== folderName) {
    return invalid(`"name" ${JSON.stringify(name)} is not the folder's name ${JSON.stringify(folderName)}`);
  }
  if (typeof description !== 'string' || description.trim() === '') {
    return invalid('"description" is missing or not a string');
  }
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return invalid(`"description" is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  return {
    kind: 'skill',
    name,
    description,
    frontMatter,
    body: unmarked.slice(match[0].length),
  };
}

function invalid(problem: string): SkillFileParse {
  return { kind: 'invalid', problem };
}
