#!/usr/bin/env node
// The `moneta` CLI: registers tsx to run the TypeScript sources, then starts src/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
