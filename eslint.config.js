// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { foreignTables, TABLE_CALLS, tableOwners } from './tools/table-owners.js';

/**
 * A module reads another module's data only through that module's exported functions: no query in
 * a module names a table another module owns (or an infrastructure table it does not serve).
 */
const tableOwnership = Object.keys(tableOwners().modules).map((name) => ({
  files: [`packages/server/src/modules/${name}/**/*.ts`],
  ignores: ['**/*.test.ts', '**/fixtures.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: `CallExpression[callee.property.name=/^(${TABLE_CALLS.join('|')})$/] > Literal.arguments[value=/^(${foreignTables(name).join('|')})( as [a-z_]+)?$/]`,
        message: `The ${name} module names a table it does not own: read it through its owner's exported functions (tools/table-owners.js).`,
      },
    ],
  },
}));

/**
 * The TypeScript rules the compiler does not enforce (unhandled promises, `any`, unused code), with
 * type information from tsconfig.json. `npm run lint`; CI runs it after the typecheck.
 */
export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'coverage/**', 'packages/client/src/generated/**', 'packages/client/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      // Async functions that implement an async interface need no await of their own.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Browser code is typed by its own project (DOM, no Node), which the project service would not
    // find from tsconfig.json, so these files name it.
    files: ['packages/server/src/modules/*/browser/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.browser.json', tsconfigRootDir: import.meta.dirname } },
  },
  ...tableOwnership,
  // No function body grows into a wall (issue 21): services are small top-level functions bound by
  // a thin factory, and the bench is a short driver with one file per scenario family. Tests are
  // exempt: a describe block holds its cases.
  {
    files: ['bench/**/*.ts', 'chaos/**/*.ts', 'packages/**/*.ts', 'tools/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150 }] },
  },
  { files: ['eslint.config.js', '.dependency-cruiser.cjs', 'tools/*.js', 'packages/client/bin/*.js'], ...tseslint.configs.disableTypeChecked },
);
