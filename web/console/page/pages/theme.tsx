/**
 * The login screen's theme (GET/PATCH /login-theme) beside the real screen in a frame: each save reloads the
 * frame, so what the preview shows is what users get. The screen lets only the API's own origin frame it.
 */
import { useState } from 'preact/hooks';
import { call, pageData } from '../api.js';
import { t } from '../texts.js';
import { ApiForm, Loaded, useLoad } from '../ui.js';

interface LoginTheme {
  primary_color: string;
  background_color: string;
  mode: string;
  corner_radius: number;
  logo_position: string;
}

export function Theme() {
  const s = t().theme;
  const theme = useLoad(() => call<LoginTheme>('GET', 'auth', '/login-theme'));
  const [version, setVersion] = useState(0);
  const screen = pageData().loginScreenUrl;
  const previewUrl = screen ? `${screen}?lang=${t().lang}&preview=${version}` : undefined;
  return (
    <>
      <h1 tabIndex={-1}>{s.heading}</h1>
      <p>{s.intro}</p>
      <div class="row theme">
        <section class="card">
          <Loaded answer={theme.answer}>
            {(body) => (
              <ApiForm
                id="theme"
                submitLabel={t().common.save}
                doneText={t().common.saved}
                initial={{
                  primary_color: body.primary_color,
                  background_color: body.background_color,
                  mode: body.mode,
                  corner_radius: String(body.corner_radius),
                  logo_position: body.logo_position,
                }}
                fields={[
                  { name: 'primary_color', label: s.primary, type: 'color' },
                  { name: 'background_color', label: s.background, placeholder: '#f4f5f7', hint: s.backgroundHint },
                  {
                    name: 'mode',
                    label: s.mode,
                    type: 'select',
                    options: [
                      { value: 'light', label: s.light },
                      { value: 'dark', label: s.dark },
                      { value: 'auto', label: s.auto },
                    ],
                  },
                  { name: 'corner_radius', label: s.radius, type: 'number' },
                  {
                    name: 'logo_position',
                    label: s.logo,
                    type: 'select',
                    options: [
                      { value: 'center', label: s.center },
                      { value: 'left', label: s.left },
                    ],
                  },
                ]}
                onSubmit={(v) =>
                  call('PATCH', 'auth', '/login-theme', {
                    primary_color: v.primary_color,
                    background_color: v.background_color,
                    mode: v.mode,
                    corner_radius: v.corner_radius === '' ? undefined : Number(v.corner_radius),
                    logo_position: v.logo_position,
                  })
                }
                onDone={() => setVersion(version + 1)}
              />
            )}
          </Loaded>
        </section>
        {previewUrl ? (
          <section class="card preview">
            <h2>{s.preview}</h2>
            <iframe class="preview" id="theme-preview" title={s.previewTitle} src={previewUrl} key={previewUrl} />
            <p>
              <a href={previewUrl} target="_blank" rel="noopener noreferrer">
                {s.open}
              </a>
            </p>
          </section>
        ) : null}
      </div>
    </>
  );
}
