// CMS (PKCS#7) SignedData, as WSAA takes a login request: the content inside the message, signed
// with the certificate's key (RSA, SHA-256) over the signed attributes content type, signing time
// and message digest, the certificate included. pkijs builds and signs the structure; Node's
// WebCrypto does the arithmetic. Nothing of the key leaves this module.
import { type KeyObject, X509Certificate, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
};

/** Node's WebCrypto, given to pkijs explicitly (no global engine). */
export const cryptoEngine = new pkijs.CryptoEngine({
  name: 'node',
  crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'],
});

/** The certificate of a PEM, as pkijs reads it. */
export const pkijsCertificate = (pem: string) =>
  pkijs.Certificate.fromBER(new Uint8Array(new X509Certificate(pem).raw));

/** The base64 DER of a CMS SignedData carrying `content`, signed with `key` for `certPem`. */
export async function signCms(content: Uint8Array, certPem: string, key: KeyObject, at: Date): Promise<string> {
  const cert = pkijsCertificate(certPem);
  const privateKey = await webcrypto.subtle.importKey(
    'pkcs8',
    key.export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const digest = await webcrypto.subtle.digest('SHA-256', content);
  const signed = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: OID.data,
      eContent: new asn1js.OctetString({ valueHex: content }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
            new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: at })] }),
            new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] }),
          ],
        }),
      }),
    ],
    certificates: [cert],
  });
  await signed.sign(privateKey, 0, 'SHA-256', undefined, cryptoEngine);
  const message = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
  return Buffer.from(message.toSchema().toBER(false)).toString('base64');
}
