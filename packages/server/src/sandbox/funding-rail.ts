import type { FundingRail } from '../providers/funding-rail.js';
import { fundingInstructionsFor } from './funding-instructions.js';

/** The sandbox's funding instructions: valid-looking numbers and addresses, found again by their reference. */
export const sandboxFundingRail: FundingRail = {
  name: 'sandbox',
  accountInstructions: fundingInstructionsFor,
  acceptsRealtime: () => undefined,
  quoteInstructions: fundingInstructionsFor,
};
