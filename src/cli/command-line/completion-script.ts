/**
 * `mcphost completion [bash|zsh]`: a completion script for the shell. Written by hand rather than
 * yargs' own (which runs the whole CLI on every Tab): commands, flags and providers are in the
 * script, and only server names (after `mcp get|remove`, `auth login|logout`) ask mcphost, which reads the config and
 * starts nothing.
 */
import { AUTH_SUBCOMMANDS } from './auth-tree.js';
import { CHAT_FLAGS } from './flags.js';
import { MODELS_SUBCOMMANDS } from './models-tree.js';
import { SHORT_MODEL_NAMES } from '../../../providers/local/model-names.js';
import { BUILTIN_SERVER_NAMES } from '../../builtin/names.js';

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
    --tool-search) COMPREPLY=($(compgen -W "auto always never" -- "$current")); return ;;
    --builtin) local before="" last="$current"
      # A list (fs,to<Tab>): complete the name after the last comma, keeping the ones before it.
      if [[ $current == *,* ]]; then before="\${current%,*},"; last="\${current##*,}"; fi
      COMPREPLY=($(compgen -P "$before" -W "${BUILTIN_SERVER_NAMES.join(' ')}" -- "$last")); return ;;
    -s|--scope) if [[ \${COMP_WORDS[1]} == mcp ]]; then COMPREPLY=($(compgen -W "user project" -- "$current")); return; fi ;;
    -t|--transport) COMPREPLY=($(compgen -W "stdio http sse" -- "$current")); return ;;
    get|remove) if [[ \${COMP_WORDS[1]} == mcp ]]; then COMPREPLY=($(compgen -W "$(mcphost mcp list --names 2>/dev/null)" -- "$current")); return; fi ;;
    login|logout) if [[ \${COMP_WORDS[1]} == auth ]]; then COMPREPLY=($(compgen -W "$(mcphost mcp list --names 2>/dev/null)" -- "$current")); return; fi ;;
  esac
  if [[ \${COMP_WORDS[1]} == auth ]]; then
    if [[ $COMP_CWORD == 2 ]]; then COMPREPLY=($(compgen -W "${AUTH_SUBCOMMANDS.join(' ')}" -- "$current")); fi
    return
  fi
  if [[ \${COMP_WORDS[1]} == models ]]; then
    if [[ $COMP_CWORD == 2 ]]; then COMPREPLY=($(compgen -W "${MODELS_SUBCOMMANDS.join(' ')}" -- "$current"));
    elif [[ $COMP_CWORD == 3 && ( $previous == pull || $previous == rm ) ]]; then COMPREPLY=($(compgen -W "${SHORT_MODEL_NAMES.map((entry) => entry.name).join(' ')}" -- "$current")); fi
    return
  fi
  if [[ \${COMP_WORDS[1]} == mcp ]]; then
    if [[ $COMP_CWORD == 2 ]]; then COMPREPLY=($(compgen -W "add add-json list get remove" -- "$current")); fi
    return
  fi
  if [[ \${COMP_WORDS[1]} == completion ]]; then COMPREPLY=($(compgen -W "bash zsh" -- "$current")); return; fi
  if [[ $COMP_CWORD == 1 && $current != -* ]]; then
    COMPREPLY=($(compgen -W "script mcp auth models batch completion" -- "$current"))
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
