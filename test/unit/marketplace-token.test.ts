import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { SignJWT, UnsecuredJWT } from 'jose';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { signRegistrationToken, SignedTokenResolver } from '../../shared/adapters/marketplace/signed-token-resolver.js';

const SECRET = 'unit-test-marketplace-secret-000000000000';
const CUSTOMER = { customerIdentifier: 'cust-42', productCode: 'prod-7' };
const resolver = new SignedTokenResolver(SECRET);
const key = new TextEncoder().encode(SECRET);

async function refusal(token: string, why: RegExp, subject = resolver): Promise<void> {
  await assert.rejects(subject.resolve(token), (error: unknown) => {
    assert.ok(error instanceof DomainError);
    assert.equal(error.kind, 'invalid');
    assert.equal(error.code, 'invalid_registration_token');
    assert.match(error.message, /^registration_token: /);
    assert.match(error.message, why);
    return true;
  });
}

const signed = (claims: Record<string, unknown>, alg = 'HS256') => new SignJWT(claims).setProtectedHeader({ alg }).sign(key);

afterEach(() => resetClockForTests());

describe('the default marketplace resolver', () => {
  it('answers the customer and product of a token signed with the secret', async () => {
    assert.deepEqual(await resolver.resolve(await signRegistrationToken(SECRET, CUSTOMER)), CUSTOMER);
  });

  it('refuses a token signed with another secret, or altered', async () => {
    await refusal(await signRegistrationToken('another-secret-of-enough-length-0000000', CUSTOMER), /not a registration token/);
    const [header, payload, signature] = (await signRegistrationToken(SECRET, CUSTOMER)).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'someone-else', product_code: 'prod-7', exp: 4_000_000_000 })).toString('base64url');
    await refusal(`${header}.${forged}.${signature}`, /not a registration token/);
    await refusal(`${header}.${payload}.${signature!.slice(0, -2)}`, /not a registration token/);
    await refusal('not-a-token', /not a registration token/);
  });

  it('refuses an unsigned token and other algorithms', async () => {
    await refusal(new UnsecuredJWT({ sub: 'c', product_code: 'p', exp: 4_000_000_000 }).encode(), /not a registration token/);
    await refusal(await signed({ sub: 'c', product_code: 'p', exp: 4_000_000_000 }, 'HS512'), /not a registration token/);
  });

  it('follows the domain clock for expiry, and requires one', async () => {
    const token = await signRegistrationToken(SECRET, CUSTOMER, 2_000_000_000);
    setClockForTests(1_999_999_999_000);
    assert.deepEqual(await resolver.resolve(token), CUSTOMER);
    setClockForTests(2_000_000_001_000);
    await refusal(token, /has expired/);
    resetClockForTests();
    await refusal(await signed({ sub: 'c', product_code: 'p' }), /exp claim/);
  });

  it('requires a customer identifier and a product code of sensible length', async () => {
    await refusal(await signed({ product_code: 'p', exp: 4_000_000_000 }), /sub claim/);
    await refusal(await signed({ sub: 'c', exp: 4_000_000_000 }), /product_code claim/);
    await refusal(await signed({ sub: 'c', product_code: 'p'.repeat(256), exp: 4_000_000_000 }), /product_code claim/);
    await refusal(await signed({ sub: 'c', product_code: 7, exp: 4_000_000_000 }), /product_code claim/);
  });

  it('refuses every token when no secret is configured', async () => {
    await refusal(await signRegistrationToken(SECRET, CUSTOMER), /not configured/, new SignedTokenResolver(undefined));
  });
});
