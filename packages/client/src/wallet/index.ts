export { decryptExportBundle, decryptSessionKey, encryptOtpCode, stamp, WalletCryptoError, type EncryptOtpInput } from './crypto.js';
export { generateKeyPair, keyPairFromPrivateKey, type WalletKeyPair } from './keys.js';
export {
  fetchBundleSigningKey,
  otpLogin,
  sendOtpChallenge,
  verifyOtp,
  walletSignatureHeaders,
  type OtpLoginOptions,
  type SignatureChallenge,
  type WalletSession,
} from './flows.js';
