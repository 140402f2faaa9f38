import type { RejectionReason } from './errors.js';

/**
 * The review an uploaded document gets before it is kept. Production keeps every well-formed file
 * (a verification provider reviews documents when a verification is submitted); the sandbox
 * rejects by a rule a developer can drive.
 */
export interface DocumentReview {
  rejection(fileName: string): RejectionReason | undefined;
}

export const acceptingReview: DocumentReview = { rejection: () => undefined };

const SUFFIX_REJECTIONS: Record<string, RejectionReason> = {
  '101': 'LOW_QUALITY',
  '102': 'DATA_MISMATCH',
  '103': 'EXPIRED',
  '104': 'SUSPECTED_FRAUD',
  '105': 'UNSUITABLE_DOCUMENT',
  '106': 'INCOMPLETE',
};

/**
 * The sandbox's review: the last three characters of the file name before its extension pick the outcome
 * (`passport-101.pdf` is LOW_QUALITY): 101 LOW_QUALITY, 102 DATA_MISMATCH, 103 EXPIRED,
 * 104 SUSPECTED_FRAUD, 105 UNSUITABLE_DOCUMENT, 106 INCOMPLETE; anything else is kept.
 */
export const suffixReview: DocumentReview = {
  rejection(fileName) {
    const dot = fileName.lastIndexOf('.');
    const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
    return SUFFIX_REJECTIONS[stem.slice(-3)];
  },
};
