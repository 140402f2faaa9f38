/**
 * The layers of the server, checked by `npm run lint` (dependency-cruiser). Type-only imports count:
 * a type pulled from above ties the layers as surely as a value does. Tests are not checked.
 */
const SRC = '^packages/server/src/';
const ROOT = `${SRC}(container|app|main|worker|cli|bootstrap|openapi-document)\\.ts$`;
const INFRASTRUCTURE = `${SRC}(db|jobs|events|fx|crypto|lib|providers|outbound|messaging)/`;

/** @type {import('dependency-cruiser').IConfiguration} */
// eslint-disable-next-line no-undef -- CommonJS, as dependency-cruiser reads it
module.exports = {
  forbidden: [
    {
      name: 'core-at-the-bottom',
      comment: 'core/ (unit of work, ids, errors, events, gates, reactions, auth) imports only db/ types and lib/',
      severity: 'error',
      from: { path: `${SRC}core/` },
      to: { path: [ROOT, `${SRC}(http|jobs|events|ledger|modules|providers|sandbox|fx|outbound|messaging|contract|crypto)/`, `${SRC}config\\.ts$`] },
    },
    {
      name: 'ledger-knows-no-module',
      comment: 'the ledger knows no module and no HTTP',
      severity: 'error',
      from: { path: `${SRC}ledger/` },
      to: { path: [ROOT, `${SRC}(http|modules|contract)/`] },
    },
    {
      name: 'http-knows-no-module',
      comment: 'http/ turns core answers into HTTP for any module; it names none',
      severity: 'error',
      from: { path: `${SRC}http/` },
      to: { path: [ROOT, `${SRC}(modules|contract)/`] },
    },
    {
      name: 'infrastructure-knows-no-module',
      comment: 'db, jobs, events, fx, crypto, lib, providers, outbound and messaging take what they need as parameters',
      severity: 'error',
      from: { path: INFRASTRUCTURE },
      to: { path: [ROOT, `${SRC}(modules|contract|http)/`] },
    },
    {
      name: 'contract-knows-no-module',
      comment: 'contract/ (the module definition and what modules receive) sits under the modules',
      severity: 'error',
      from: { path: `${SRC}contract/` },
      to: { path: [ROOT, `${SRC}modules/`] },
    },
    {
      name: 'modules-never-import-the-root',
      comment: 'a module gets what it needs through the module contract, not from the composition root',
      severity: 'error',
      from: { path: `${SRC}(modules|contract|sandbox)/` },
      to: { path: ROOT },
    },
    {
      name: 'sdk-knows-no-server-module',
      comment: "the SDK speaks the wire format; it never imports the server's modules",
      severity: 'error',
      from: { path: '^packages/client/' },
      to: { path: `${SRC}(modules|contract|core|http|ledger)/` },
    },
    {
      name: 'packages-never-import-tools',
      comment: "tools/ holds what the tests, the bench and the chaos run share (processes, a private PostgreSQL); the server and the SDK ship without it",
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^tools/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$', '/generated/', '^test/', '^bench/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
