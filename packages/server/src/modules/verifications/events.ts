import type { VerificationView } from './service.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    'VERIFICATION.APPROVED': VerificationView;
    'VERIFICATION.REJECTED': VerificationView;
    'VERIFICATION.RESOLVE_ERRORS': VerificationView;
    'VERIFICATION.IN_PROGRESS': VerificationView;
    'VERIFICATION.PENDING_MANUAL_REVIEW': VerificationView;
  }
}

export const VERIFICATION_EVENTS = ['VERIFICATION.APPROVED', 'VERIFICATION.REJECTED', 'VERIFICATION.RESOLVE_ERRORS', 'VERIFICATION.IN_PROGRESS', 'VERIFICATION.PENDING_MANUAL_REVIEW'] as const;
