import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { renderMail } from '../../shared/adapters/mail/render.js';
import { retryDelaySeconds } from '../../shared/adapters/mail/courier.js';

describe('mail rendering', () => {
  it('puts the value where {####} stands, in subject and text', () => {
    assert.deepEqual(renderMail({ subject: 'Code {####}', message: 'Your code: {####}. Again: {####}' }, '123456'), {
      subject: 'Code 123456',
      text: 'Your code: 123456. Again: 123456',
    });
  });

  it('escapes the value inside an HTML message', () => {
    const out = renderMail({ subject: 'Hi', message: '<p>Password: <b>{####}</b></p>' }, 'a<b>&"c\'');
    assert.equal(out.html, '<p>Password: <b>a&lt;b&gt;&amp;&quot;c&#39;</b></p>');
    assert.equal(out.text, undefined);
  });

  it("puts a value holding $ patterns as it is (a generated password may hold $&, $` or $')", () => {
    const value = "a$&b$`c$'d$$e$1";
    assert.deepEqual(renderMail({ subject: 'S {####}', message: 'Password: {####}.' }, value), {
      subject: `S ${value}`,
      text: `Password: ${value}.`,
    });
    assert.equal(renderMail({ subject: 'S', message: '<p>{####}</p>' }, value).html, '<p>a$&amp;b$`c$&#39;d$$e$1</p>');
  });

  it('keeps a subject on one line', () => {
    assert.equal(renderMail({ subject: 'A\r\nB {####}', message: '{####}' }, 'x').subject, 'A B x');
  });

  it('backs off from 30 s to an hour', () => {
    assert.deepEqual([1, 2, 3, 4, 8, 20].map(retryDelaySeconds), [30, 60, 120, 240, 3600, 3600]);
  });
});
