// ESLint for ui/src, run from ui/ as `npm run lint` (the config is given with --config,
// so paths are relative to ui/).
//
// Why a folder of its own: ui/ type-checks and builds with TypeScript 7, and
// typescript-eslint's parser needs the TypeScript JS API of 5.x/6.0 (its peer range is
// < 6.1). Here its own package.json installs TypeScript 6.0 beside it, which the parser
// resolves first, while ui/'s tsc stays at 7. The rules are syntactic only (no
// parserOptions.project): type-aware ones would type-check ui/src a second time, with
// another compiler than the one that builds it; `npm run typecheck` does that part.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'lint/', 'node_modules/'] },
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended, reactHooks.configs.flat.recommended],
    rules: {
      // A missing dependency is a stale value in waiting: an error, not a warning.
      'react-hooks/exhaustive-deps': 'error',
      // A page takes its route's props whether it reads them or not: `_` says so.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
