/**
 * The login screen's theme (GET/PATCH /login-theme, our extension) with two previews, and its title, logo, legal
 * links (customize-page-settings) and pages (customize-pages).
 *
 * The draft preview follows the form as it is typed, before anything is saved: the sign-in card drawn with the
 * screen's own words (web/login/texts, ja/en switch) and colours and the same contrast rule as the screen's theme
 * stylesheet (web/login/theme-colours.ts), light or dark. Its values go in through the CSS object model (CSS
 * variables), which `style-src 'self'` allows. Below it, the real screen in a frame (it lets only the API's own
 * origin frame it, `frame-ancestors`), reloaded after each save: what users get.
 */
import { useState } from 'preact/hooks';
import { call, pageData, type Answer } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, useLoad, type FieldSpec, type Values } from '../ui.js';
import { EN as LOGIN_EN } from '../../../login/texts/en.js';
import { JA as LOGIN_JA } from '../../../login/texts/ja.js';
import { contrast, DARK, fullHex, LIGHT, textOn } from '../../../login/theme-colours.js';

interface Theme {
  primary_color: string;
  background_color: string;
  background_image: string;
  mode: 'light' | 'dark' | 'auto';
  corner_radius: number;
  logo_position: 'center' | 'left' | 'hidden';
}
interface PageSettings {
  title: string;
  icon: string;
  terms_of_service_url: string;
  privacy_policy_url: string;
}

const HEX = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The CSS variables the screen's theme stylesheet sets, for one scheme. */
export function previewVariables(values: Values, dark: boolean): Record<string, string> {
  const palette = dark ? DARK : LIGHT;
  const primary = HEX.test(String(values.primary_color)) ? fullHex(String(values.primary_color)) : '#2a46ad';
  const radius = Math.max(0, Math.min(24, Number(values.corner_radius) || 0));
  const image = String(values.background_image);
  return {
    '--lp-page': HEX.test(String(values.background_color)) ? fullHex(String(values.background_color)) : palette.page,
    '--lp-image': /^(data:image\/|https:\/\/)[^"'()\s\\]*$/.test(image) ? `url("${image}")` : 'none',
    '--lp-card': palette.card,
    '--lp-text': palette.text,
    '--lp-muted': palette.muted,
    '--lp-line': palette.line,
    '--lp-field': palette.field,
    '--lp-primary': primary,
    '--lp-on-primary': textOn(primary),
    '--lp-accent': contrast(primary, palette.card) >= 4.5 ? primary : palette.text,
    '--lp-radius': `${radius}px`,
    '--lp-control': `${Math.min(Math.round(radius / 2), 12)}px`,
  };
}

function Preview({ values, settings }: { values: Values; settings: PageSettings | undefined }) {
  const th = t().loginScreen;
  const [lang, setLang] = useState(t().lang === 'ja' ? 'ja' : 'en');
  const [scheme, setScheme] = useState<'light' | 'dark'>(values.mode === 'dark' ? 'dark' : 'light');
  const words = (lang === 'ja' ? LOGIN_JA : LOGIN_EN).page;
  const dark = values.mode === 'dark' || (values.mode === 'auto' && scheme === 'dark');
  const radio = (name: string, value: string, label: string, current: string, set: (v: string) => void) => (
    <label class="inline" key={value}>
      <input type="radio" name={name} value={value} id={`preview-${name}-${value}`} checked={current === value} onChange={() => set(value)} /> {label}
    </label>
  );
  return (
    <section class="card" aria-labelledby="preview-heading">
      <h2 id="preview-heading">{th.previewHeading}</h2>
      <p class="hint">{th.previewNote}</p>
      <div class="row switches">
        <fieldset>
          <legend>{th.previewLanguage}</legend>
          {radio('lang', 'ja', '日本語', lang, setLang)}
          {radio('lang', 'en', 'English', lang, setLang)}
        </fieldset>
        <fieldset>
          <legend>{th.previewScheme}</legend>
          {radio('scheme', 'light', th.light, scheme, (v) => setScheme(v as 'light'))}
          {radio('scheme', 'dark', th.dark, scheme, (v) => setScheme(v as 'dark'))}
          {values.mode !== 'auto' ? <p class="hint">{th.schemeFixed}</p> : null}
        </fieldset>
      </div>
      <div
        id="login-preview"
        class={`login-preview logo-${String(values.logo_position)}${dark ? ' dark' : ''}`}
        lang={lang}
        data-scheme={dark ? 'dark' : 'light'}
        style={previewVariables(values, dark)}
        inert
        aria-label={th.previewHeading}
        role="img"
      >
        <div class="lp-card">
          {settings?.icon && values.logo_position !== 'hidden' ? <img class="lp-icon" src={settings.icon} alt="" /> : null}
          <p class="lp-title">{settings?.title || words.defaultTitle}</p>
          <p class="lp-label">{words.email}</p>
          <div class="lp-input" />
          <p class="lp-label">{words.password}</p>
          <div class="lp-input" />
          <div class="lp-button" id="preview-button">
            {words.signIn}
          </div>
          <p class="lp-link">{words.forgotPassword}</p>
        </div>
      </div>
    </section>
  );
}

/** The real screen, framed; `version` moves on each save on this page so the frame loads what was saved. */
function RealScreen({ version }: { version: number }) {
  const s = t().theme;
  const screen = pageData().loginScreenUrl;
  if (!screen) return null;
  const url = `${screen}?lang=${t().lang}&preview=${version}`;
  return (
    <section class="card preview" aria-labelledby="real-screen-heading">
      <h2 id="real-screen-heading">{s.preview}</h2>
      <p class="hint">{t().loginScreen.realNote}</p>
      <iframe class="preview" id="theme-preview" title={s.previewTitle} src={url} key={url} />
      <p>
        <a href={url} target="_blank" rel="noopener noreferrer">
          {s.open}
        </a>
      </p>
    </section>
  );
}

function ThemeForm({
  theme,
  settings,
  version,
  onSaved,
}: {
  theme: Theme;
  settings: PageSettings | undefined;
  version: number;
  onSaved: () => void;
}) {
  const th = t().loginScreen;
  const initial: Values = { ...theme, primary_color: fullHex(theme.primary_color), corner_radius: String(theme.corner_radius) };
  // The form's values as typed, for the draft preview beside it.
  const [values, setValues] = useState<Values>(initial);
  const fields: FieldSpec[] = [
    { name: 'primary_color', label: th.primary, type: 'color' },
    { name: 'background_color', label: th.background, hint: th.backgroundHint, placeholder: '#f4f5f7' },
    { name: 'background_image', label: th.image, hint: th.imageHint },
    {
      name: 'mode',
      label: th.mode,
      type: 'select',
      options: [
        { value: 'light', label: th.light },
        { value: 'dark', label: th.dark },
        { value: 'auto', label: th.auto },
      ],
    },
    { name: 'corner_radius', label: th.radius, type: 'number', hint: th.radiusHint },
    {
      name: 'logo_position',
      label: th.logo,
      type: 'select',
      options: [
        { value: 'center', label: th.logoCenter },
        { value: 'left', label: th.logoLeft },
        { value: 'hidden', label: th.logoHidden },
      ],
    },
  ];
  return (
    <div class="theme-layout">
      <section class="card" aria-labelledby="theme-heading">
        <h2 id="theme-heading">{th.heading}</h2>
        <ApiForm
          id="theme"
          fields={fields}
          initial={initial}
          submitLabel={th.save}
          doneText={th.saved}
          onChange={setValues}
          onSubmit={({ corner_radius, ...rest }) => call('PATCH', 'auth', '/login-theme', { ...rest, corner_radius: Number(corner_radius) })}
          onDone={onSaved}
        />
      </section>
      <Preview values={values} settings={settings} />
      <RealScreen version={version} />
    </div>
  );
}

/** A change of the Auth API that, once done, tells the page (the real screen's frame loads again). */
async function saved(onSaved: () => void, method: string, path: string, body: unknown): Promise<Answer> {
  const answer = await call(method, 'auth', path, body);
  if (answer.ok) onSaved();
  return answer;
}

interface PageSettingsFull extends PageSettings {
  favicon: string;
  tag_manager_container_id?: string;
  google_tag_manager_container_id?: string;
  is_sign_in_id_enabled?: boolean;
}

/** The screen's title, icon and legal links (PATCH /customize-page-settings takes them all; the rest is kept). */
function PageSettingsForm({ settings, onLook, onSaved }: { settings: PageSettingsFull; onLook: (look: PageSettings) => void; onSaved: () => void }) {
  const th = t().loginScreen;
  const [icon, setIcon] = useState(settings.icon);
  const [values, setValues] = useState<Values>({});
  const look = (next: Values, nextIcon: string) => onLook({ ...settings, title: String(next.title ?? settings.title), icon: nextIcon });
  return (
    <section class="card" aria-labelledby="page-settings-heading">
      <h2 id="page-settings-heading">{th.settingsHeading}</h2>
      <label for="page-settings-icon-file">{th.icon}</label>
      <input
        type="file"
        id="page-settings-icon-file"
        accept="image/png,image/jpeg,image/gif,image/webp,image/svg+xml"
        aria-describedby="page-settings-icon-hint"
        onChange={(event) => {
          const file = (event.currentTarget as HTMLInputElement).files?.[0];
          if (!file) return;
          const reader = new FileReader();
          reader.onload = () => {
            setIcon(String(reader.result));
            look(values, String(reader.result));
          };
          reader.readAsDataURL(file);
        }}
      />
      <p class="hint" id="page-settings-icon-hint">
        {th.iconHint}
      </p>
      <ApiForm
        id="page-settings"
        fields={[
          { name: 'title', label: th.title, required: true },
          { name: 'terms_of_service_url', label: th.terms, type: 'text', placeholder: 'https://' },
          { name: 'privacy_policy_url', label: th.privacy, type: 'text', placeholder: 'https://' },
          { name: 'is_sign_in_id_enabled', label: th.signInId, type: 'checkbox' },
        ]}
        initial={{
          title: settings.title,
          terms_of_service_url: settings.terms_of_service_url,
          privacy_policy_url: settings.privacy_policy_url,
          is_sign_in_id_enabled: settings.is_sign_in_id_enabled === true,
        }}
        submitLabel={t().common.save}
        doneText={t().common.saved}
        onChange={(next) => {
          setValues(next);
          look(next, icon);
        }}
        onSubmit={(v) =>
          saved(onSaved, 'PATCH', '/customize-page-settings', {
            icon,
            favicon: settings.favicon,
            title: v.title,
            terms_of_service_url: v.terms_of_service_url,
            privacy_policy_url: v.privacy_policy_url,
            tag_manager_container_id: settings.google_tag_manager_container_id ?? settings.tag_manager_container_id ?? '',
            is_sign_in_id_enabled: v.is_sign_in_id_enabled === true,
          })
        }
      />
    </section>
  );
}

type PageKey = 'sign_in_page' | 'sign_up_page' | 'password_reset_page';
type CustomizePages = Record<PageKey, { html_contents: string; is_terms_of_service: boolean; is_privacy_policy: boolean }>;

/** The SaaS's own HTML on each page of the screen and the consents each page asks for (PATCH /customize-pages). */
function CustomizePagesForms({ pages, onSaved }: { pages: CustomizePages; onSaved: () => void }) {
  const th = t().loginScreen;
  const names: Record<PageKey, string> = { sign_in_page: th.signInPage, sign_up_page: th.signUpPage, password_reset_page: th.resetPage };
  return (
    <section class="card" aria-labelledby="pages-heading">
      <h2 id="pages-heading">{th.pagesHeading}</h2>
      <p class="hint">{th.pagesNote}</p>
      {(Object.keys(names) as PageKey[]).map((key) => (
        <details key={key}>
          <summary>{names[key]}</summary>
          <ApiForm
            id={`page-${key}`}
            fields={[
              { name: 'html_contents', label: th.html, type: 'textarea' },
              { name: 'is_terms_of_service', label: th.askTerms, type: 'checkbox' },
              { name: 'is_privacy_policy', label: th.askPrivacy, type: 'checkbox' },
            ]}
            initial={{ ...pages[key] }}
            submitLabel={t().common.save}
            doneText={t().common.saved}
            onSubmit={(v) =>
              saved(onSaved, 'PATCH', '/customize-pages', {
                [key]: {
                  html_contents: v.html_contents,
                  is_terms_of_service: v.is_terms_of_service === true,
                  is_privacy_policy: v.is_privacy_policy === true,
                },
              })
            }
          />
        </details>
      ))}
    </section>
  );
}

export function LoginTheme() {
  const th = t().loginScreen;
  const theme = useLoad(() => call<Theme>('GET', 'auth', '/login-theme'));
  const settings = useLoad(() => call<PageSettingsFull>('GET', 'auth', '/customize-page-settings'));
  const pages = useLoad(() => call<CustomizePages>('GET', 'auth', '/customize-pages'));
  const [look, setLook] = useState<PageSettings | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  const loaded = settings.answer?.ok ? settings.answer.body : undefined;
  return (
    <>
      <h1 tabIndex={-1}>{t().nav.theme}</h1>
      <p class="muted">{th.intro}</p>
      <Loaded answer={theme.answer}>{(body) => <ThemeForm theme={body} settings={look ?? loaded} version={version} onSaved={bump} />}</Loaded>
      <Loaded answer={settings.answer}>{(body) => <PageSettingsForm settings={body} onLook={setLook} onSaved={bump} />}</Loaded>
      <Loaded answer={pages.answer}>{(body) => <CustomizePagesForms pages={body} onSaved={bump} />}</Loaded>
    </>
  );
}
