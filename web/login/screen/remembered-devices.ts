/**
 * Remembered devices of the login screen, kept where no script can read them: the device's key, group and
 * random password sealed by the secret box in an HttpOnly cookie scoped to the SaaS's screen steps
 * (`…/login/{saas id}/api/`), one per user. The server makes the device's secret when the sign-in offers a
 * device, and answers DEVICE_SRP_AUTH and DEVICE_PASSWORD_VERIFIER with it when the browser brings it back.
 *
 * Why not the page's localStorage: storage is per origin, and a script on the origin (another SaaS's tag
 * manager on a shared origin, or the SaaS's own on its host) reads all of it; a device's secret skips the MFA
 * code. Sealed under a context naming the SaaS and the user, a cookie copied to another screen or user opens
 * as nothing.
 */
import { decodeJwt } from 'jose';
import { newDeviceSecret, SrpClient, type RememberedDevice } from '../srp.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import type { ChallengeAnswer, SignInResult } from '../../../shared/schemas/sign-in.js';
import { cookie, setCookie, type CookieScope } from '../../kit/cookies.js';
import { openJson, sealJson } from '../../kit/sealed.js';

export const DEVICE_COOKIE_PREFIX = 'login_device_';
/** How long a browser keeps a device it is not told to forget. */
export const DEVICE_COOKIE_SECONDS = 365 * 86400;
const USER_ID = /^[A-Za-z0-9-]{1,64}$/;

const sealContext = (saasId: string, userId: string) => ({ purpose: 'login screen remembered device', saas_id: saasId, user_id: userId });

/** The remembered-device cookies of one request, and the one its answer sets or forgets. */
export class DeviceJar {
  private outgoing: string | undefined;

  constructor(
    private readonly box: SecretBox,
    private readonly saasId: string,
    private readonly cookieHeader: string | undefined,
    /** `…/login/{saas id}/api/`, Strict, Secure over HTTPS. */
    private readonly scope: CookieScope,
  ) {}

  /** The device this browser keeps for the user (USER_ID_FOR_SRP), when it brought one sealed for this screen. */
  async device(userId: string): Promise<RememberedDevice | undefined> {
    if (!USER_ID.test(userId)) return undefined;
    const sealed = cookie(this.cookieHeader, `${DEVICE_COOKIE_PREFIX}${userId}`);
    if (!sealed) return undefined;
    const device = await openJson<RememberedDevice>(this.box, sealed, sealContext(this.saasId, userId));
    return device && typeof device.key === 'string' && typeof device.group === 'string' && typeof device.password === 'string' ? device : undefined;
  }

  /** The service no longer knows the device: the browser forgets it. */
  forget(userId: string): void {
    if (USER_ID.test(userId)) this.outgoing = setCookie(`${DEVICE_COOKIE_PREFIX}${userId}`, '', this.scope, 0);
  }

  /**
   * A new secret for the device the sign-in offered (as CognitoUser's generateHashDevice makes it): `confirm`
   * sends its salt and verifier and says whether the device is remembered; only then does the browser keep it.
   */
  async keep(
    accessToken: string,
    offered: { device_key: string; device_group_key: string },
    confirm: (salt: string, verifier: string) => Promise<boolean>,
  ) {
    const { device, salt, verifier } = await newDeviceSecret(offered.device_group_key, offered.device_key);
    const remembered = await confirm(salt, verifier);
    const userId = String(decodeJwt(accessToken).sub ?? '');
    if (remembered && USER_ID.test(userId)) {
      const sealed = await sealJson(this.box, device, sealContext(this.saasId, userId));
      this.outgoing = setCookie(`${DEVICE_COOKIE_PREFIX}${userId}`, sealed, this.scope, DEVICE_COOKIE_SECONDS);
    }
    return remembered;
  }

  /** The Set-Cookie value of the answer, if any. */
  get setCookie(): string | undefined {
    return this.outgoing;
  }
}

/**
 * DEVICE_SRP_AUTH and DEVICE_PASSWORD_VERIFIER answered with the device's own SRP (srp.ts, as the
 * browser answered them before): whatever the sign-in asks next.
 */
export async function answerDeviceSteps(
  respond: (answer: ChallengeAnswer) => Promise<SignInResult>,
  step: SignInResult,
  device: RememberedDevice,
  username: string,
): Promise<SignInResult> {
  const srp = new SrpClient();
  const challenge = await respond({
    challenge_name: 'DEVICE_SRP_AUTH',
    session: step.session ?? '',
    challenge_responses: { USERNAME: username, DEVICE_KEY: device.key, SRP_A: await srp.srpA() },
  });
  const responses = await srp.deviceClaim(challenge.challenge_parameters, challenge.session ?? '', device, username);
  return respond({ challenge_name: 'DEVICE_PASSWORD_VERIFIER', session: challenge.session ?? '', challenge_responses: responses });
}
