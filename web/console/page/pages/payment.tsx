/**
 * The payment provider (GET/PUT /payment-provider, our extension): the Stripe key is sealed and never shown
 * again, only its last characters.
 */
import { call } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, useLoad } from '../ui.js';

function PaymentProvider() {
  const b = t().payment;
  const { answer, reload } = useLoad(() => call<{ provider: string; secret_key: string }>('GET', 'auth', '/payment-provider'));
  return (
    <section class="card" aria-labelledby="payment-heading">
      <h2 id="payment-heading">{b.paymentHeading}</h2>
      <Loaded answer={answer}>
        {(body) => (
          <>
            <p id="payment-state">{body.provider ? `${b.stripeSet} ${body.secret_key}` : b.stripeUnset}</p>
            <ApiForm
              id="payment-provider"
              fields={[{ name: 'secret_key', label: b.stripeKey, type: 'password', autoComplete: 'off', hint: b.stripeKeyHint }]}
              submitLabel={t().common.save}
              doneText={t().common.saved}
              onSubmit={(v) => call('PUT', 'auth', '/payment-provider', { provider: 'stripe', secret_key: v.secret_key })}
              onDone={reload}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

export function PaymentPage() {
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.payment}</h1>
      <PaymentProvider />
    </>
  );
}
