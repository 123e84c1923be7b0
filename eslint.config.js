import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'reports/**', 'coverage/**', '**/generated/**', 'bench/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
        AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', Response: 'readonly',
        Request: 'readonly', Headers: 'readonly', FormData: 'readonly', Blob: 'readonly', TextEncoder: 'readonly',
        TextDecoder: 'readonly', performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The one-way flow: core modules never reach into the CLI, never exit, never print.
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/**', '../cli/*'], message: 'core modules must not import cli/' }] }],
      'no-restricted-properties': ['error',
        { object: 'process', property: 'exit', message: 'only the CLI entry sets the exit code' },
        { object: 'console', property: 'log', message: 'core modules do not print; return data to the CLI' }],
    },
  },
);
