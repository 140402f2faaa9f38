#!/usr/bin/env node
// The `moneta` CLI. In this repository it runs the TypeScript sources through tsx; an installed
// package (npm pack / npm install) has no sources and runs the compiled dist/ instead.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli/main.js');
}
