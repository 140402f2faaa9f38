import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: { 'POST /tokens': { name: 'fixture token', permissions: ['VIEW', 'TRANSACT'] } },
  async create({ call, ids, label }) {
    const token = await call('POST', '/tokens', { name: `${label} token`, permissions: ['VIEW'] });
    ids.set('ApiToken', (token.body as { id: string }).id);
  },
};
