/**
 * The shapes of Cognito's USER_SRP_AUTH as a client sees them, with no dependency: what client/srp.ts (the
 * unmodified AuthenticationHelper) and the login screen's own client (web/login/srp.ts) both read and answer.
 */

/** What POST /sign-in and POST /challenge-id answer. */
export interface PasswordChallenge {
  srp_b: string;
  salt: string;
  secret_block: string;
  pool_name: string;
  /** USER_ID_FOR_SRP */
  username: string;
  session: string;
}

/** What POST /sign-in/challenge takes: the PASSWORD_VERIFIER answer. */
export interface PasswordClaim {
  session: string;
  username: string;
  password_claim_secret_block: string;
  password_claim_signature: string;
  timestamp: string;
}

/** A Sign In answer's PASSWORD_VERIFIER challenge as the proof needs it; undefined when the answer is not one. */
export function passwordChallenge(step: {
  challenge_name?: string;
  challenge_parameters?: Record<string, string>;
  session?: string;
}): PasswordChallenge | undefined {
  const p = step.challenge_parameters ?? {};
  if (step.challenge_name !== 'PASSWORD_VERIFIER' || !p.SRP_B || !p.SALT || !p.SECRET_BLOCK || !p.POOL_NAME || !p.USER_ID_FOR_SRP) return undefined;
  return {
    srp_b: p.SRP_B,
    salt: p.SALT,
    secret_block: p.SECRET_BLOCK,
    pool_name: p.POOL_NAME,
    username: p.USER_ID_FOR_SRP,
    session: step.session ?? '',
  };
}

/** The challenge responses of Respond to Sign In Challenge that carry a password claim. */
export function verifierResponses(claim: Omit<PasswordClaim, 'session'>): Record<string, string> {
  return {
    USERNAME: claim.username,
    PASSWORD_CLAIM_SECRET_BLOCK: claim.password_claim_secret_block,
    PASSWORD_CLAIM_SIGNATURE: claim.password_claim_signature,
    TIMESTAMP: claim.timestamp,
  };
}

/** What a browser keeps to sign in as a remembered device: the device's key, its group, its random password. */
export interface RememberedDevice {
  key: string;
  group: string;
  password: string;
}
