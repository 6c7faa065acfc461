/**
 * Remembered devices (Confirm Device, Update Device Status), as Cognito has them: a completed sign-in offers
 * a device (new_device_metadata) when the SaaS's device_remembering allows; the client confirms it with the
 * salt and verifier of a random device password it keeps; a remembered device then signs in with
 * DEVICE_SRP_AUTH and skips MFA. With `always` a confirmed device is remembered at once; with `userOptIn`
 * the answer says user_confirmation_necessary and the application asks the user before Update Device Status.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { deviceVerifierFromClient } from '../../crypto/srp-server.js';
import { invalid } from '../../errors.js';
import type { DeviceConfirmation, DeviceStatusUpdate } from '../../schemas/sign-in.js';
import { deviceNotFound, type DeviceRecord, type DeviceRemembering, type SignInRepository } from './sign-in-state.js';
import type { AccessTokenVerifier } from '../tokens/tokens.js';

export interface DeviceDeps {
  store: Pick<SignInRepository, 'confirmDevice' | 'rememberDevice'>;
  verifier: AccessTokenVerifier;
  deviceRemembering(saasId: string): Promise<DeviceRemembering>;
}

/** A device a completed sign-in offers: Cognito-shaped keys, waiting `seconds` for its confirmation. */
export function newOfferedDevice(region: string, now: number, seconds: number): DeviceRecord {
  return {
    device_key: `${region}_${randomUUID()}`,
    device_group_key: `-${randomBytes(9).toString('base64url')}`,
    status: 'offered',
    remembered: false,
    created_at: now,
    expiresAt: now + seconds,
  };
}

export class DeviceService {
  constructor(private readonly deps: DeviceDeps) {}

  async confirm(saasId: string, input: DeviceConfirmation): Promise<{ user_confirmation_necessary: boolean }> {
    const config = input.device_secret_verifier_config;
    if (!config) {
      throw invalid('invalid_parameter', 'device_secret_verifier_config: is required (the salt and verifier of the device password)', {
        field: 'device_secret_verifier_config',
      });
    }
    const stored = deviceVerifierFromClient(config);
    if (!stored) {
      throw invalid('invalid_parameter', 'device_secret_verifier_config: must hold a base64 salt and a base64 SRP verifier (not 0, 1 or ≥ N)', {
        field: 'device_secret_verifier_config',
      });
    }
    const claims = await this.deps.verifier.verifyAccessToken(saasId, input.access_token);
    const remembering = await this.deps.deviceRemembering(saasId);
    const confirmed = await this.deps.store.confirmDevice(
      saasId,
      claims.sub,
      input.device_key,
      {
        ...stored,
        ...(input.device_name ? { device_name: input.device_name } : {}),
        remembered: remembering === 'always',
        confirmed_at: nowSeconds(),
      },
      nowSeconds(),
    );
    if (!confirmed) throw deviceNotFound('device_key', 'no device offered to this user awaits confirmation under this key');
    return { user_confirmation_necessary: remembering === 'userOptIn' };
  }

  async updateStatus(saasId: string, input: DeviceStatusUpdate): Promise<void> {
    const claims = await this.deps.verifier.verifyAccessToken(saasId, input.access_token);
    if (!(await this.deps.store.rememberDevice(saasId, claims.sub, input.device_key, input.device_remembered_status === 'remembered'))) {
      throw deviceNotFound('device_key', 'no confirmed device of this user has this key');
    }
  }
}
