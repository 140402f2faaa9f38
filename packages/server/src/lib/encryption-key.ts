import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseEncryptionKey, type Config } from '../config.js';
import type { EncryptionKeys } from './sealed.js';

/**
 * The keys that encrypt secrets at rest: MONETA_ENCRYPTION_KEY when set (production requires it);
 * in sandbox otherwise generated once and kept in DATA_DIR/encryption.key with mode 0600. Keys of
 * earlier rotations, still needed to open what they sealed, are MONETA_PREVIOUS_ENCRYPTION_KEYS.
 */
export function resolveEncryptionKey(config: Config): EncryptionKeys {
  const previous = config.previousEncryptionKeys.map((raw) => parseEncryptionKey(raw, 'MONETA_PREVIOUS_ENCRYPTION_KEYS'));
  return { current: resolveCurrentKey(config), previous };
}

function resolveCurrentKey(config: Config): Buffer {
  if (config.encryptionKey) return parseEncryptionKey(config.encryptionKey);
  if (config.mode !== 'sandbox') throw new Error('MONETA_ENCRYPTION_KEY is required in production');
  const file = join(config.dataDir, 'encryption.key');
  if (existsSync(file)) return parseEncryptionKey(readFileSync(file, 'utf8').trim());
  const key = randomBytes(32);
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return key;
}
