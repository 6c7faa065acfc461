/**
 * Sign-in settings (GET/PUT /sign-in-settings): password policy (length first, the breached-password range
 * service), remembered browsers, self sign-up, passkeys (and passkeys required), refresh-token lifetime.
 */
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, useLoad } from '../ui.js';

interface SignInSettings {
  password_policy: {
    minimum_length: number;
    is_require_lowercase: boolean;
    is_require_numbers: boolean;
    is_require_symbols: boolean;
    is_require_uppercase: boolean;
    temporary_password_validity_days: number;
  };
  device_configuration: { device_remembering: string };
  self_regist: { enable: boolean };
  passkeys?: { enable: boolean; required?: boolean };
  password_length_first?: { enable: boolean };
  password_breach_range?: { enable: boolean };
  mfa_configuration?: { mfa_configuration: string };
  refresh_token_validity?: { value: number; unit: string };
}

const number = (value: string | boolean | undefined) => (value === '' || value === undefined ? undefined : Number(value));

export function SignInSettingsPage() {
  const s = t().signInSettings;
  const settings = useLoad(() => call<SignInSettings>('GET', 'auth', '/sign-in-settings'));
  return (
    <>
      <h1 tabIndex={-1}>{s.heading}</h1>
      <p>{s.intro}</p>
      <section class="card">
        <Loaded answer={settings.answer}>
          {(body) => (
            <ApiForm
              id="sign-in-settings"
              submitLabel={t().common.save}
              doneText={t().common.saved}
              initial={{
                minimum_length: String(body.password_policy.minimum_length),
                is_require_lowercase: body.password_policy.is_require_lowercase,
                is_require_uppercase: body.password_policy.is_require_uppercase,
                is_require_numbers: body.password_policy.is_require_numbers,
                is_require_symbols: body.password_policy.is_require_symbols,
                temporary_password_validity_days: String(body.password_policy.temporary_password_validity_days),
                device_remembering: body.device_configuration.device_remembering,
                self_regist: body.self_regist.enable,
                passkeys: body.passkeys?.enable ?? false,
                password_length_first: body.password_length_first?.enable ?? false,
                password_breach_range: body.password_breach_range?.enable ?? false,
                passkeys_required: body.passkeys?.required ?? false,
                value: String(body.refresh_token_validity?.value ?? 30),
                unit: body.refresh_token_validity?.unit ?? 'days',
              }}
              fields={[
                { name: 'minimum_length', label: `${s.passwordPolicy}: ${s.minimumLength}`, type: 'number' },
                { name: 'password_length_first', label: s.lengthFirst, type: 'checkbox' },
                { name: 'password_breach_range', label: s.breachRange, type: 'checkbox', hint: s.breachRangeHint },
                { name: 'is_require_lowercase', label: s.lowercase, type: 'checkbox' },
                { name: 'is_require_uppercase', label: s.uppercase, type: 'checkbox' },
                { name: 'is_require_numbers', label: s.numbers, type: 'checkbox' },
                { name: 'is_require_symbols', label: s.symbols, type: 'checkbox' },
                { name: 'temporary_password_validity_days', label: s.temporaryDays, type: 'number' },
                {
                  name: 'device_remembering',
                  label: s.devices,
                  type: 'select',
                  options: [
                    { value: 'always', label: s.always },
                    { value: 'userOptIn', label: s.userOptIn },
                    { value: 'no', label: s.never },
                  ],
                },
                { name: 'self_regist', label: s.selfSignUp, type: 'checkbox' },
                { name: 'passkeys', label: s.passkeys, type: 'checkbox' },
                { name: 'passkeys_required', label: s.passkeysRequired, type: 'checkbox', hint: s.passkeysRequiredHint },
                { name: 'value', label: s.refreshValue, type: 'number' },
                {
                  name: 'unit',
                  label: s.refreshUnit,
                  type: 'select',
                  options: [
                    { value: 'minutes', label: s.minutes },
                    { value: 'hours', label: s.hours },
                    { value: 'days', label: s.days },
                  ],
                },
              ]}
              onSubmit={(v) =>
                call('PUT', 'auth', '/sign-in-settings', {
                  password_policy: {
                    minimum_length: number(v.minimum_length),
                    is_require_lowercase: v.is_require_lowercase === true,
                    is_require_uppercase: v.is_require_uppercase === true,
                    is_require_numbers: v.is_require_numbers === true,
                    is_require_symbols: v.is_require_symbols === true,
                    temporary_password_validity_days: number(v.temporary_password_validity_days),
                  },
                  device_configuration: { device_remembering: v.device_remembering },
                  self_regist: { enable: v.self_regist === true },
                  passkeys: { enable: v.passkeys === true, required: v.passkeys_required === true },
                  password_length_first: { enable: v.password_length_first === true },
                  password_breach_range: { enable: v.password_breach_range === true },
                  refresh_token_validity: { value: number(v.value), unit: v.unit },
                })
              }
            />
          )}
        </Loaded>
      </section>
      <section class="card" aria-labelledby="mfa-heading">
        <h2 id="mfa-heading">{s.mfaHeading}</h2>
        <Loaded answer={settings.answer}>
          {(body) => (
            <p id="mfa-configuration">
              {body.mfa_configuration?.mfa_configuration === 'on' ? s.mfaOn : (body.mfa_configuration?.mfa_configuration ?? '')}
            </p>
          )}
        </Loaded>
        <p class="hint">{s.mfaFixed}</p>
      </section>
    </>
  );
}
