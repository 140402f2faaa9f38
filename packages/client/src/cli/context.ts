import type { Command } from 'commander';
import { createApi, type Api } from './api.js';
import { resolveCredentials, type Credentials } from './config.js';
import type { RetryPolicy } from '../retry.js';
import { outputMode, type OutputMode } from './output.js';

/** The options every command accepts (declared on the root program). */
export interface GlobalOptions {
  json?: boolean;
  table?: boolean;
  profile?: string;
}

export function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function modeOf(command: Command): OutputMode {
  return outputMode(globals(command));
}

export function credentialsOf(command: Command): Credentials {
  return resolveCredentials({ profile: globals(command).profile });
}

export function apiOf(command: Command, options: { retry?: Partial<RetryPolicy>; timeoutMs?: number } = {}): Api {
  return createApi(credentialsOf(command), options);
}
