declare module '../../contract/module.js' {
  interface ModuleSettings {
    uma: UmaSettings;
  }
}

export interface UmaSettings {
  /** Whether payments from other VASPs wait for the platform's approve or reject (MONETA_UMA_INCOMING_APPROVAL). */
  incomingApproval: boolean;
  /** How long the platform has to decide (MONETA_UMA_APPROVAL_WINDOW_SECONDS). */
  approvalWindowMs: number;
}

export function readUmaSettings(environment: Readonly<Record<string, string | undefined>>): UmaSettings {
  const approval = environment.MONETA_UMA_INCOMING_APPROVAL ?? 'none';
  if (approval !== 'none' && approval !== 'platform') throw new Error('MONETA_UMA_INCOMING_APPROVAL must be none or platform');
  const window = environment.MONETA_UMA_APPROVAL_WINDOW_SECONDS ?? '300';
  if (!/^[1-9][0-9]{0,6}$/.test(window)) throw new Error('MONETA_UMA_APPROVAL_WINDOW_SECONDS must be a whole number of seconds, 1 to 9999999');
  return { incomingApproval: approval === 'platform', approvalWindowMs: Number(window) * 1000 };
}
