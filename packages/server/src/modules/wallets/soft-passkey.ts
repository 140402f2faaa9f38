import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A WebAuthn authenticator in software (none attestation, ES256) for tests and fixtures: `create` and
 * `get` answer in the browser's JSON form (`PublicKeyCredential.toJSON()`), `attest` and `assert` in
 * the wallet API's shapes.
 */
export class SoftPasskey {
  readonly credentialId = randomBytes(16).toString('base64url');
  private readonly key: KeyObject;
  private readonly jwk: { x: string; y: string };
  private counter = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.key = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.jwk = { x: jwk.x!, y: jwk.y! };
  }

  private authData(flags: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([createHash('sha256').update(this.rpId).digest(), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create(options).toJSON(). */
  create(options: { challenge: string }): Record<string, unknown> {
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(this.jwk.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(this.jwk.y, 'base64url'))],
    ]);
    const id = Buffer.from(this.credentialId, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, id, Buffer.from(isoCBOR.encode(cose))]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(this.authData(0x45, attested))]]) as never);
    const clientData = { type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false };
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: Buffer.from(JSON.stringify(clientData)).toString('base64url'), attestationObject: Buffer.from(attestationObject).toString('base64url'), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get(options).toJSON(): signs the options' challenge (already base64url). */
  get(options: { challenge: string }, origin = this.origin): Record<string, unknown> {
    this.counter++;
    const authenticatorData = this.authData(0x05);
    const clientDataJson = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJson).digest()]), this.key);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: clientDataJson.toString('base64url'), authenticatorData: authenticatorData.toString('base64url'), signature: signature.toString('base64url') },
      clientExtensionResults: {},
    };
  }

  /** The wallet API's attestation shape (POST /auth/credentials PASSKEY) of `create`. */
  attest(challenge: string): { credentialId: string; clientDataJson: string; attestationObject: string; transports: string[] } {
    const response = (this.create({ challenge }) as { response: { clientDataJSON: string; attestationObject: string; transports: string[] } }).response;
    return { credentialId: this.credentialId, clientDataJson: response.clientDataJSON, attestationObject: response.attestationObject, transports: response.transports };
  }

  /** The wallet API's assertion shape of `get`, over the challenge's UTF-8 bytes (as @turnkey/webauthn-stamper does). */
  assert(challengeHex: string): { credentialId: string; clientDataJson: string; authenticatorData: string; signature: string } {
    const response = (this.get({ challenge: Buffer.from(challengeHex, 'utf8').toString('base64url') }) as { response: { clientDataJSON: string; authenticatorData: string; signature: string } }).response;
    return { credentialId: this.credentialId, clientDataJson: response.clientDataJSON, authenticatorData: response.authenticatorData, signature: response.signature };
  }
}
