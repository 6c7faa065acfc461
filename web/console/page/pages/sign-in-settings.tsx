/**
 * Sign-in settings (GET/PUT /sign-in-settings): the password policy, remembered devices, self sign-up, passkeys
 * and the refresh tokens' lifetime (our extensions), and MFA as the API has it (optional: per user). One form
 * per part, each saved by itself, so a refusal names a field of the part just sent.
 */
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, useLoad } from '../ui.js';

interface Settings {
  password_policy: {
    minimum_length: number;
    is_require_lowercase: boolean;
    is_require_numbers: boolean;
    is_require_symbols: boolean;
    is_require_uppercase: boolean;
    temporary_password_validity_days: number;
  };
  device_configuration: { device_remembering: string };
  mfa_configuration: { mfa_configuration: string };
  self_regist: { enable: boolean };
  passkeys?: { enable: boolean };
  refresh_token_validity?: { value: number; unit: string };
}

const save = (body: unknown) => call('PUT', 'auth', '/sign-in-settings', body);

export function SignInSettingsPage() {
  const s = t().signInSettings;
  const { answer, reload } = useLoad(() => call<Settings>('GET', 'auth', '/sign-in-settings'));
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.signInSettings}</h1>
      <Loaded answer={answer}>
        {(body) => (
          <>
            <section class="card" aria-labelledby="policy-heading">
              <h2 id="policy-heading">{s.policyHeading}</h2>
              <ApiForm
                id="password-policy"
                initial={{
                  ...body.password_policy,
                  minimum_length: String(body.password_policy.minimum_length),
                  temporary_password_validity_days: String(body.password_policy.temporary_password_validity_days),
                }}
                fields={[
                  { name: 'minimum_length', label: s.minimumLength, type: 'number', hint: s.minimumLengthHint },
                  { name: 'is_require_lowercase', label: s.lowercase, type: 'checkbox' },
                  { name: 'is_require_uppercase', label: s.uppercase, type: 'checkbox' },
                  { name: 'is_require_numbers', label: s.numbers, type: 'checkbox' },
                  { name: 'is_require_symbols', label: s.symbols, type: 'checkbox' },
                  { name: 'temporary_password_validity_days', label: s.temporaryDays, type: 'number', hint: s.temporaryDaysHint },
                ]}
                submitLabel={t().common.save}
                doneText={t().common.saved}
                onSubmit={(v) =>
                  save({
                    password_policy: {
                      minimum_length: Number(v.minimum_length),
                      is_require_lowercase: v.is_require_lowercase === true,
                      is_require_uppercase: v.is_require_uppercase === true,
                      is_require_numbers: v.is_require_numbers === true,
                      is_require_symbols: v.is_require_symbols === true,
                      temporary_password_validity_days: Number(v.temporary_password_validity_days),
                    },
                  })
                }
                onDone={reload}
              />
            </section>
            <section class="card" aria-labelledby="access-heading">
              <h2 id="access-heading">{s.accessHeading}</h2>
              <p class="hint">{s.mfaNote}</p>
              <ApiForm
                id="sign-in-access"
                initial={{
                  device_remembering: body.device_configuration.device_remembering,
                  self_regist: body.self_regist.enable,
                  passkeys: body.passkeys?.enable ?? false,
                }}
                fields={[
                  {
                    name: 'device_remembering',
                    label: s.devices,
                    type: 'select',
                    options: [
                      { value: 'always', label: s.devicesAlways },
                      { value: 'userOptIn', label: s.devicesOptIn },
                      { value: 'no', label: s.devicesNo },
                    ],
                  },
                  { name: 'self_regist', label: s.selfSignUp, type: 'checkbox', hint: s.selfSignUpHint },
                  { name: 'passkeys', label: s.passkeys, type: 'checkbox' },
                ]}
                submitLabel={t().common.save}
                doneText={t().common.saved}
                onSubmit={(v) =>
                  save({
                    device_configuration: { device_remembering: v.device_remembering },
                    self_regist: { enable: v.self_regist === true },
                    passkeys: { enable: v.passkeys === true },
                  })
                }
                onDone={reload}
              />
            </section>
            <section class="card" aria-labelledby="refresh-heading">
              <h2 id="refresh-heading">{s.refreshHeading}</h2>
              <ApiForm
                id="refresh-token"
                initial={{ value: String(body.refresh_token_validity?.value ?? 30), unit: body.refresh_token_validity?.unit ?? 'days' }}
                fields={[
                  { name: 'value', label: s.refreshValue, type: 'number', hint: s.refreshHint },
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
                submitLabel={t().common.save}
                doneText={t().common.saved}
                onSubmit={(v) => save({ refresh_token_validity: { value: Number(v.value), unit: v.unit } })}
                onDone={reload}
              />
            </section>
          </>
        )}
      </Loaded>
    </>
  );
}
