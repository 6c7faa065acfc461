/**
 * The checks of the screen's new-password fields, as the person types (main.ts wires them to each field): the
 * policy's rules, the confirmation, and the breach note.
 */
import type { PageData } from '../page-data.js';

export function passwordFieldChecks(
  data: PageData,
  element: <T extends HTMLElement>(id: string) => T | null,
  askBreached: (password: string) => Promise<{ breached?: boolean }>,
) {
  /**
   * Each new-password field: its rules (listed by the server from the SaaS's policy) marked as the person types,
   * and the confirmation field told whether it matches; a mismatch blocks the form's submission.
   */
  function checkRules(field: HTMLInputElement): void {
    const rules = data.passwordRules;
    const list = element(`${field.id}-rules`);
    if (!rules || !list) return;
    // As the service checks it: the NFKC form (full-width Ａ is A, ｶﾞ is one character).
    const value = field.value.normalize('NFKC');
    const has = (test: (c: string) => boolean) => [...value].some(test);
    const met: Record<string, boolean> = {
      length: [...value].length >= rules.minimum_length,
      lowercase: has((c) => c >= 'a' && c <= 'z'),
      uppercase: has((c) => c >= 'A' && c <= 'Z'),
      number: has((c) => c >= '0' && c <= '9'),
      symbol: has((c) => rules.symbols.includes(c)),
      'outer-space': value === value.trim(),
    };
    for (const item of list.querySelectorAll<HTMLElement>('li[data-rule]')) {
      const done = value !== '' && met[item.dataset.rule ?? ''] === true;
      item.classList.toggle('met', done);
      const state = item.querySelector('.rule-state');
      if (state) state.textContent = done ? data.messages.ruleMet : data.messages.ruleNotMet;
    }
  }
  function checkMatch(confirm: HTMLInputElement): void {
    const first = element<HTMLInputElement>(confirm.dataset.confirms ?? '');
    const note = element(`${confirm.dataset.confirms ?? ''}-match`);
    if (!first) return;
    const same = confirm.value === first.value;
    confirm.setCustomValidity(same ? '' : data.messages.passwordsDiffer);
    if (note) note.textContent = confirm.value === '' ? '' : same ? data.messages.passwordsMatch : data.messages.passwordsDiffer;
  }
  /**
   * The breach screen as the person types: once the listed rules are met and typing pauses, the screen's step
   * answers whether the password is on the breached list (the list is 416 KiB, too much for every page).
   */
  const BREACH_PAUSE_MS = 400;
  const breachTimers = new Map<HTMLInputElement, number>();
  function checkBreached(field: HTMLInputElement): void {
    const note = element(`${field.id}-breached`);
    if (!note) return;
    clearTimeout(breachTimers.get(field));
    const rules = element(`${field.id}-rules`);
    const ready = field.value !== '' && (!rules || [...rules.querySelectorAll('li[data-rule]')].every((li) => li.classList.contains('met')));
    if (!ready) {
      note.textContent = '';
      return;
    }
    const asked = field.value;
    breachTimers.set(
      field,
      window.setTimeout(() => {
        askBreached(asked)
          .then((answer) => {
            if (field.value === asked) note.textContent = answer.breached ? data.messages.passwordBreached : '';
          })
          // The service checks again when the password is set: a failed look-up only leaves the note empty.
          .catch(() => undefined);
      }, BREACH_PAUSE_MS),
    );
  }
  return { checkRules, checkMatch, checkBreached };
}
