/** Sign-in with a SaaS's API key; on this computer under npm start, the demo operator in one click. */
import { useState } from 'preact/hooks';
import { consoleCall, pageData, type Answer } from '../api.js';
import { t } from '../texts.js';
import { ApiForm } from '../ui.js';

const signedIn = () => location.reload();

export function SignIn({ expired }: { expired: boolean }) {
  const s = t().signIn;
  const [demoAnswer, setDemoAnswer] = useState<Answer | undefined>(undefined);
  // One sentence for every wrong sign-in, as the backend answers them alike.
  const refusal = (answer: Answer) => (answer.status === 429 ? s.throttled : answer.status === 0 ? t().common.unreachable : s.failed);
  return (
    <main class="narrow" id="content">
      <h1 tabIndex={-1}>{s.heading}</h1>
      {expired ? (
        <p class="notice" role="status">
          {t().common.signedOut}
        </p>
      ) : null}
      <p>{s.intro}</p>
      <ApiForm
        id="sign-in"
        submitLabel={s.submit}
        fields={[
          { name: 'saas_id', label: s.saasId, required: true, autoComplete: 'username' },
          { name: 'api_key', label: s.apiKey, required: true, autoComplete: 'off' },
          { name: 'client_secret', label: s.secret, type: 'password', required: true, autoComplete: 'current-password' },
        ]}
        describe={refusal}
        onSubmit={(values) => consoleCall('POST', 'session', values)}
        onDone={signedIn}
      />
      {pageData().demo ? (
        <>
          <button
            type="button"
            class="secondary"
            id="demo-sign-in"
            onClick={async () => {
              const answer = await consoleCall('POST', 'session/demo', {});
              if (answer.ok) signedIn();
              else setDemoAnswer(answer);
            }}
          >
            {s.demo}
          </button>
          <p class="hint">{s.demoNote}</p>
          {demoAnswer && !demoAnswer.ok ? (
            <p class="error" role="alert">
              {refusal(demoAnswer)}
            </p>
          ) : null}
        </>
      ) : null}
    </main>
  );
}
