// ESLint's flat config for the page's scripts (static/*.js): the
// recommended rules, for ES modules in a browser, prefs.js being the one
// plain script. test.sh runs it, and tsc (tsconfig.json); see
// docs/architecture.md.
import js from '@eslint/js';

export default [
  js.configs.recommended,
  {
    files: ['static/*.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    rules: {
      // tsc --checkJs checks every name against the DOM's own types, which
      // know the browser's globals; a list of them here would go stale.
      'no-undef': 'off',
    },
  },
  {
    files: ['static/prefs.js'],
    languageOptions: { sourceType: 'script' },
  },
];
