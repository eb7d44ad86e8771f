// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message: "import * as z from 'zod': the bundle then keeps only what is used (esbuild.config.mjs).",
        },
        {
          // `#` is private at run time too; TypeScript's `private` only at compile time. A private
          // constructor stays `private` (a factory-only class; JavaScript has no `#constructor`).
          selector:
            ":matches(PropertyDefinition, AccessorProperty, TSParameterProperty, MethodDefinition[kind!='constructor'])[accessibility='private']",
          message: 'use a `#name` member for private state, not `private`',
        },
      ],
    },
  },
  {
    // A file past 400 lines holds more than one concept: split it by concept (a test file's shared
    // set-up goes to test/support/), not by trimming lines. Blank lines and comments count.
    files: ['**/*.ts', '**/*.mjs'],
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The layering of docs/design.md, held by lint: no import cycle (a type in the wrong file makes
    // one), and imports only in the allowed direction: bin -> src/cli -> src/setup -> the rest;
    // providers see only the core contract and small helpers; nothing but src/cli and src/setup
    // sees providers, config or the CLI.
    files: ['src/**/*.ts', 'providers/**/*.ts', 'config/**/*.ts', 'bin/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/!(cli|setup|acp)/**',
              from: ['./providers', './config', './src/cli', './src/setup'],
              message: 'only src/cli and src/setup may import providers, config, the CLI or the setup',
            },
            {
              // The editor's front end (ACP) is a peer of the CLI: it builds runners through the setup.
              target: './src/acp',
              from: ['./providers', './config', './src/cli'],
              message:
                'src/acp builds runners through src/setup; it does not import the CLI, providers or config',
            },
            {
              target: ['./src/!(cli|acp)/**', './providers', './config'],
              from: './src/acp',
              message: 'only the CLI starts the editor front end (src/acp)',
            },
            {
              target: './providers',
              from: './src',
              except: ['./core', './util'],
              message: 'providers see only the core contract (src/core) and src/util',
            },
            { target: './providers', from: './config', message: 'providers do not read the config' },
            {
              target: './config',
              from: ['./providers', './src/cli', './src/setup'],
              message: 'the config does not know the CLI, the setup or the providers',
            },
            {
              target: './src/setup',
              from: './src/cli',
              message: 'the setup builds runners for the CLI and programs; it does not import the CLI',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'only src/cli and bin end the process' },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'bin/**/*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Tests and benches drive processes and print figures; they may be looser.
    files: ['test/**/*.ts', 'examples/**/*.ts'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
