/**
 * The compliance sections of the dashboard's customer page (bundled into /dashboard/assets/app.js):
 * the customer's verifications, newest first, each RESOLVE_ERRORS one with its typed errors; a
 * business's beneficial owners; the documents of the customer and of each owner. Every id the page
 * shows where a person or business is meant carries its name beside it. Each section reads its own
 * list: one the API refuses shows the API's error in that section and leaves the rest of the page.
 */
import { api, errorBox, h, query, section, status, table, when, type Child } from './lib.js';
import type { Page } from './wire.js';

/** GET /verifications items: the fields the page shows. */
export interface VerificationError {
  resourceId: string;
  type: string;
  field?: string;
  acceptedDocumentTypes?: string[];
  reason: string;
}

export interface Verification {
  id: string;
  customerId: string;
  verificationStatus: string;
  errors: VerificationError[];
  createdAt: string;
  updatedAt?: string;
}

/** GET /beneficial-owners items. */
export interface BeneficialOwner {
  id: string;
  customerId: string;
  roles: string[];
  ownershipPercentage: number;
  personalInfo: { firstName: string; middleName?: string; lastName: string; nationality?: string };
  kycStatus: string;
  createdAt: string;
}

/** GET /documents items. */
export interface DocumentInfo {
  id: string;
  documentHolder: string;
  documentType: string;
  side?: string;
  country: string;
  documentNumber?: string;
  issuingAuthority?: string;
  fileName: string;
  createdAt: string;
}

/** The customer as these sections need it: its id, type and the name the page shows. */
export interface Subject {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  name: string;
}

const LIMIT = 100;

type Outcome<T> = { value: T } | { error: unknown };

async function attempt<T>(work: Promise<T>): Promise<Outcome<T>> {
  try {
    return { value: await work };
  } catch (error) {
    return { error: error };
  }
}

export function ownerName(o: BeneficialOwner): string {
  const p = o.personalInfo;
  return [p.firstName, p.middleName, p.lastName].filter(Boolean).join(' ');
}

/** A name with its id beside it, small and monospaced (the customer's own id is on the page already: in its title). */
function named(name: string, id: string, self: boolean): HTMLSpanElement {
  return self
    ? h('span', { class: 'named', 'data-resource': id, title: id }, h('span', { class: 'name' }, name), ' ', h('span', { class: 'muted' }, '(this customer)'))
    : h('span', { class: 'named', 'data-resource': id }, h('span', { class: 'name' }, name), ' ', h('span', { class: 'mono muted' }, id));
}

/** Who or what an id names on this page: the customer, one of its owners, or one of their documents. */
function namer(subject: Subject, owners: BeneficialOwner[], documents: DocumentInfo[]): (id: string) => Child {
  const names = new Map<string, string>([[subject.id, subject.name]]);
  for (const o of owners) names.set(o.id, ownerName(o));
  for (const d of documents) names.set(d.id, d.documentType + ' ' + d.fileName);
  return function (id) {
    const name = names.get(id);
    return name === undefined ? h('span', { class: 'mono', 'data-resource': id }, id) : named(name, id, id === subject.id);
  };
}

function more(page: Page<unknown>, what: string): HTMLParagraphElement | null {
  return page.hasMore ? h('p', { class: 'muted' }, 'Showing the latest ' + page.data.length + (page.totalCount === undefined ? '' : ' of ' + page.totalCount) + ' ' + what + '.') : null;
}

function errorTable(errors: VerificationError[], who: (id: string) => Child): HTMLTableElement {
  return h('table', { class: 'verification-errors' },
    h('thead', {}, h('tr', {}, ['Concerns', 'Issue', 'Field', 'Accepted documents', 'Message'].map(function (t) { return h('th', {}, t); }))),
    h('tbody', {}, errors.map(function (e) {
      return h('tr', { 'data-type': e.type, 'data-resource': e.resourceId, 'data-field': e.field },
        h('td', { 'data-col': 'resource' }, who(e.resourceId)),
        h('td', { 'data-col': 'type' }, h('code', {}, e.type)),
        h('td', { 'data-col': 'field' }, e.field ? h('code', {}, e.field) : h('span', { class: 'muted' }, '—')),
        h('td', { 'data-col': 'accepted' }, e.acceptedDocumentTypes && e.acceptedDocumentTypes.length > 0 ? e.acceptedDocumentTypes.join(', ') : h('span', { class: 'muted' }, '—')),
        h('td', { 'data-col': 'reason' }, e.reason));
    })));
}

function verificationsSection(outcome: Outcome<Page<Verification>>, who: (id: string) => Child): HTMLElement {
  if ('error' in outcome) return section('Verification', { id: 'customer-verifications' }, errorBox(outcome.error));
  const page = outcome.value;
  return section('Verification', { id: 'customer-verifications' },
    page.data.length === 0
      ? h('p', { class: 'muted', id: 'no-verifications' }, 'No verification submitted yet.')
      : page.data.map(function (v, i) {
        return h('div', { class: 'verification' + (i === 0 ? ' latest' : ''), 'data-id': v.id, 'data-status': v.verificationStatus },
          h('h3', {}, status(v.verificationStatus), i === 0 ? 'Latest submission' : 'Earlier submission'),
          h('p', { class: 'muted' }, 'Submitted ', when(v.createdAt), v.updatedAt && v.updatedAt !== v.createdAt ? [', updated ', when(v.updatedAt)] : null, ' · ', h('span', { class: 'mono' }, v.id)),
          v.errors.length > 0
            ? [h('p', { class: 'errors-count' }, v.errors.length === 1 ? '1 thing to resolve:' : v.errors.length + ' things to resolve:'), errorTable(v.errors, who)]
            : null);
      }),
    more(page, 'verifications'));
}

function ownersSection(outcome: Outcome<Page<BeneficialOwner>>, documentCount: (ownerId: string) => string): HTMLElement {
  if ('error' in outcome) return section('Beneficial owners', { id: 'customer-owners' }, errorBox(outcome.error));
  const page = outcome.value;
  return section('Beneficial owners', { id: 'customer-owners' },
    table<BeneficialOwner>([
      { title: 'Name', key: 'name', cell: function (o) { return ownerName(o); } },
      { title: 'Roles', key: 'roles', cell: function (o) { return o.roles.join(', '); } },
      { title: 'Ownership', key: 'ownership', cell: function (o) { return h('span', { 'data-percent': o.ownershipPercentage }, o.ownershipPercentage + ' %'); } },
      { title: 'KYC status', key: 'kycStatus', cell: function (o) { return status(o.kycStatus); } },
      { title: 'Nationality', key: 'nationality', cell: function (o) { return o.personalInfo.nationality || '—'; } },
      { title: 'Documents', key: 'documents', cell: function (o) { return documentCount(o.id); } },
      { title: 'Owner id', key: 'id', cell: function (o) { return h('span', { class: 'mono' }, o.id); } },
    ], page.data, { id: 'owner-table' }),
    more(page, 'owners'));
}

interface HolderDocuments {
  holder: string;
  outcome: Outcome<Page<DocumentInfo>>;
}

function documentsSection(lists: HolderDocuments[], who: (id: string) => Child): HTMLElement {
  const shown: DocumentInfo[] = [];
  const problems: Node[] = [];
  for (const list of lists) {
    if ('error' in list.outcome) problems.push(h('div', {}, h('p', {}, 'Documents of ', who(list.holder), ':'), errorBox(list.outcome.error)));
    else {
      for (const d of list.outcome.value.data) shown.push(d);
      if (list.outcome.value.hasMore) problems.push(h('p', { class: 'muted' }, 'Only the latest ' + list.outcome.value.data.length + ' documents of ', who(list.holder), ' are shown.'));
    }
  }
  return section('Documents', { id: 'customer-documents' },
    table<DocumentInfo>([
      { title: 'Holder', key: 'holder', cell: function (d) { return who(d.documentHolder); } },
      { title: 'Type', key: 'type', cell: function (d) { return d.documentType; } },
      { title: 'Side', key: 'side', cell: function (d) { return d.side || '—'; } },
      { title: 'Country', key: 'country', cell: function (d) { return d.country; } },
      { title: 'Number', key: 'number', cell: function (d) { return d.documentNumber || '—'; } },
      { title: 'File', key: 'fileName', cell: function (d) { return h('span', { class: 'named' }, h('span', { class: 'name' }, d.fileName), ' ', h('span', { class: 'mono muted' }, d.id)); } },
      { title: 'Uploaded', key: 'uploaded', cell: function (d) { return when(d.createdAt); } },
    ], shown, { id: 'document-table' }),
    problems,
    h('p', { class: 'muted', id: 'document-note' }, 'The API serves neither a document’s content nor its size or review status.'));
}

/**
 * The customer's verification, (for a business) beneficial owners, and documents: one section each,
 * read in parallel; each owner's documents are read once its owners are known.
 */
export async function complianceSections(subject: Subject): Promise<HTMLElement[]> {
  const business = subject.customerType === 'BUSINESS';
  const [verifications, owners] = await Promise.all([
    attempt(api<Page<Verification>>('GET', '/verifications' + query({ customerId: subject.id, limit: 20, sortOrder: 'desc' }))),
    business ? attempt(api<Page<BeneficialOwner>>('GET', '/beneficial-owners' + query({ customerId: subject.id, limit: LIMIT }))) : Promise.resolve(null),
  ]);
  const ownerList = owners && 'value' in owners ? owners.value.data : [];
  const holders = [subject.id].concat(ownerList.map(function (o) { return o.id; }));
  const documents = await Promise.all(holders.map(async function (holder): Promise<HolderDocuments> {
    return { holder: holder, outcome: await attempt(api<Page<DocumentInfo>>('GET', '/documents' + query({ documentHolder: holder, limit: LIMIT }))) };
  }));
  const who = namer(subject, ownerList, documents.flatMap(function (d) { return 'value' in d.outcome ? d.outcome.value.data : []; }));
  const countOf = function (ownerId: string): string {
    const found = documents.find(function (d) { return d.holder === ownerId; });
    if (!found || 'error' in found.outcome) return '?';
    return found.outcome.value.data.length + (found.outcome.value.hasMore ? '+' : '');
  };
  return [
    verificationsSection(verifications, who),
    owners ? ownersSection(owners, countOf) : null,
    documentsSection(documents, who),
  ].filter(function (s): s is HTMLElement { return s !== null; });
}
