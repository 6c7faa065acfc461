/**
 * The console's frame: the sign-in form while signed out; signed in, the header (who, language, sign-out),
 * the navigation and the page the path names. Each navigation moves focus to the new page's heading.
 */
import { useEffect, useState } from 'preact/hooks';
import { consoleCall, onSignedOut, pageData, problemOf } from './api.js';
import { PAGES } from './pages.js';
import { currentPath, onNavigate } from './router.js';
import { fill, t, CATALOGUES } from './texts.js';
import { Link } from './ui.js';
import { SignIn } from './pages/sign-in.js';

function Languages() {
  const here = currentPath().page;
  return (
    <p class="languages" aria-label={t().common.language}>
      {Object.values(CATALOGUES).map((catalogue) =>
        catalogue.lang === t().lang ? (
          <span aria-current="true" lang={catalogue.lang} key={catalogue.lang}>
            {catalogue.languageName}
          </span>
        ) : (
          <a href={`${pageData().base}language?to=${catalogue.lang}&back=${encodeURIComponent(here)}`} lang={catalogue.lang} key={catalogue.lang}>
            {catalogue.languageName}
          </a>
        ),
      )}
    </p>
  );
}

export function App() {
  const [signedOut, setSignedOut] = useState(!pageData().session);
  // Signed out of this browser, but the backend could not record the sign-out (copies of the cookie still open).
  const [unrecorded, setUnrecorded] = useState(false);
  const [path, setPath] = useState(currentPath());
  useEffect(() => onSignedOut(() => setSignedOut(true)), []);
  useEffect(
    () =>
      onNavigate(() => {
        setPath(currentPath());
        // The new page's heading takes focus, so keyboards and screen readers start there.
        requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
      }),
    [],
  );
  if (signedOut) {
    return (
      <>
        <header class="top">
          <span class="product">{t().product}</span>
          <Languages />
        </header>
        {unrecorded ? (
          <p class="error" role="alert" id="sign-out-unrecorded">
            {t().signIn.signOutUnrecorded}
          </p>
        ) : null}
        <SignIn expired={!unrecorded && Boolean(pageData().session)} />
      </>
    );
  }
  const session = pageData().session as NonNullable<ReturnType<typeof pageData>['session']>;
  const entry = PAGES.find((p) => p.path === path.page);
  const Page = entry?.component;
  return (
    <>
      <a class="skip" href="#content">
        {t().skipToContent}
      </a>
      <header class="top">
        <span class="product">
          {t().product} · {t().title}
        </span>
        <span class="who" id="who">
          {fill(t().signIn.signedInAs, { saas: session.saasId, key: session.apiKey })}
        </span>
        <Languages />
        <button
          type="button"
          class="secondary"
          id="sign-out"
          onClick={async () => {
            const answer = await consoleCall('POST', 'session/sign-out', {});
            if (problemOf(answer)?.type === 'sign_out_unrecorded') {
              setUnrecorded(true);
              setSignedOut(true);
              return;
            }
            location.assign(`${pageData().base}overview`);
          }}
        >
          {t().signIn.signOut}
        </button>
      </header>
      <div class="layout">
        <nav class="side" aria-label={t().nav.label}>
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <Link to={p.path} aria-current={p.path === path.page ? 'page' : undefined}>
                  {t().nav[p.nav]}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="content">
          {Page ? (
            <Page rest={path.rest} query={path.query} key={`${path.page}/${path.rest}`} />
          ) : (
            <>
              <h1 tabIndex={-1}>{t().title}</h1>
              <p id="message">{t().notFound}</p>
            </>
          )}
        </main>
      </div>
    </>
  );
}
