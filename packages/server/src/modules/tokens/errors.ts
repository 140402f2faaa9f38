import { defineError } from '../../core/errors.js';

export const tokenNotFound = defineError({ status: 404, code: 'TOKEN_NOT_FOUND', description: 'No live API token of this platform has the id' }, () => ({
  message: 'API token not found',
}));

export const TOKEN_ERRORS = [tokenNotFound];
