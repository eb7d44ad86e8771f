/**
 * `mcphost completion [bash|zsh]`: a completion script for the shell. Written by hand rather than
 * yargs' own (which runs the whole CLI on every Tab): commands, flags and providers are in the
 * script, and only server names (after `mcp get|remove`, `auth login|logout`) ask mcphost, which reads the config and
 * starts nothing.
 */
import { AUTH_SUBCOMMANDS } from './command-line/auth-tree.js';
import { CHAT_FLAGS } from './command-line/flags.js';

const PROVIDERS = ['ollama:', 'anthropic:', 'google:', 'openai:', 'local:'];

function bashScript(): string {
  const flags = CHAT_FLAGS.flatMap((flag) => [
    `--${flag.name}`,
    ...(flag.defaultValue === true || flag.negatable === true ? [`--no-${flag.name}`] : []),
    ...(flag.short === undefined ? [] : [`-${flag.short}`]),
  ]);
  return `# mcphost completion for bash. Load it with:  source <(mcphost completion bash)
_mcphost() {
  local current=\${COMP_WORDS[COMP_CWORD]} previous=\${COMP_WORDS[COMP_CWORD-1]}
  case "$previous" in
    -m|--model) COMPREPLY=($(compgen -W "${PROVIDERS.join(' ')}" -- "$current")); compopt -o nospace 2>/dev/null; return ;;
    --output-format) COMPREPLY=($(compgen -W "text json stream-json" -- "$current")); return ;;
    -s|--scope) if [[ \${COMP_WORDS[1]} == mcp ]]; then COMPREPLY=($(compgen -W "user project" -- "$current")); return; fi ;;
    -t|--transport) COMPREPLY=($(compgen -W "stdio http sse" -- "$current")); return ;;
    get|remove) if [[ \${COMP_WORDS[1]} == mcp ]]; then COMPREPLY=($(compgen -W "$(mcphost mcp list --names 2>/dev/null)" -- "$current")); return; fi ;;
    login|logout) if [[ \${COMP_WORDS[1]} == auth ]]; then COMPREPLY=($(compgen -W "$(mcphost mcp list --names 2>/dev/null)" -- "$current")); return; fi ;;
  esac
  if [[ \${COMP_WORDS[1]} == auth ]]; then
    if [[ $COMP_CWORD == 2 ]]; then COMPREPLY=($(compgen -W "${AUTH_SUBCOMMANDS.join(' ')}" -- "$current")); fi
    return
  fi
  if [[ \${COMP_WORDS[1]} == mcp ]]; then
    if [[ $COMP_CWORD == 2 ]]; then COMPREPLY=($(compgen -W "add add-json list get remove" -- "$current")); fi
    return
  fi
  if [[ \${COMP_WORDS[1]} == completion ]]; then COMPREPLY=($(compgen -W "bash zsh" -- "$current")); return; fi
  if [[ $COMP_CWORD == 1 && $current != -* ]]; then
    COMPREPLY=($(compgen -W "script mcp auth completion" -- "$current"))
    return
  fi
  COMPREPLY=($(compgen -W "${flags.join(' ')} --help --version" -- "$current"))
}
complete -o default -F _mcphost mcphost
`;
}

/** The bash script, for zsh through its bash compatibility layer. */
function zshScript(): string {
  return `# mcphost completion for zsh. Load it with:  source <(mcphost completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript().split('\n').slice(1).join('\n')}`;
}

export function completionScript(shell: 'bash' | 'zsh'): string {
  switch (shell) {
    case 'bash':
      return bashScript();
    case 'zsh':
      return zshScript();
  }
}
