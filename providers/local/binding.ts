/**
 * The one `import('node-llama-cpp')`. It lives in a module of its own because the executable is a
 * CommonJS bundle run through `vm.Script`, where `import()` has no loader and `require()` cannot
 * load node-llama-cpp (its graph has top-level await). esbuild leaves this file out of the bundle
 * (esbuild.config.mjs) and requires tsc's ES module of it instead, whose `import()` is a real one.
 */
import type * as NodeLlamaCpp from 'node-llama-cpp';

/**
 * Variables node-llama-cpp parses when it is imported (its config.js, through env-var), where an
 * empty value is refused and the import fails: `CI=` "should be either true or false",
 * `NODE_LLAMA_CPP_GPU=` "should be one of [auto, …]". An empty variable means "not set" to nearly
 * every other program, and shells and CI systems leave `CI=` around.
 */
function isReadByNodeLlamaCpp(name: string): boolean {
  return (
    name === 'CI' ||
    name === 'COLAB_RELEASE_TAG' ||
    name.startsWith('NODE_LLAMA_CPP_') ||
    name.toLowerCase().startsWith('npm_config_node_llama_cpp_')
  );
}

/**
 * Unsets the empty variables node-llama-cpp would refuse, for the rest of the process: it reads
 * them while its modules are evaluated, and again in the process it starts to test a prebuilt
 * binary before using it (a `CI=` left in the environment there made every binary "not load").
 */
export function unsetEmptyNodeLlamaCppVariables(): void {
  for (const name of Object.keys(process.env)) {
    if (process.env[name] === '' && isReadByNodeLlamaCpp(name)) Reflect.deleteProperty(process.env, name);
  }
}

export function importNodeLlamaCpp(): Promise<typeof NodeLlamaCpp> {
  unsetEmptyNodeLlamaCppVariables();
  return import('node-llama-cpp');
}

/** node-llama-cpp from a folder of its own (the fetched runtime, runtime-source.ts): its entry's URL. */
export function importNodeLlamaCppFrom(entryUrl: string): Promise<typeof NodeLlamaCpp> {
  unsetEmptyNodeLlamaCppVariables();
  return import(entryUrl) as Promise<typeof NodeLlamaCpp>;
}

/** Whether node-llama-cpp is installed where mcphost can import it (no module is loaded to know). */
export function isNodeLlamaCppInstalled(): boolean {
  try {
    import.meta.resolve('node-llama-cpp');
    return true;
  } catch {
    return false;
  }
}
