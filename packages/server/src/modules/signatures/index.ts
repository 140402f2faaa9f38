import { defineModule } from '../../contract/module.js';
import { SIGNATURE_ERRORS } from './errors.js';
import { createSignedRequestService, type SignedRequestService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    signedRequests: SignedRequestService;
  }
}

/** The 202 signed-retry flow that sensitive actions (card changes, wallet actions) go through. */
export default defineModule({
  name: 'signedRequests',
  needs: [],
  createService: ({ providers, gates }) => createSignedRequestService({ verifier: providers.signatures, gates }),
  errors: SIGNATURE_ERRORS,
});
