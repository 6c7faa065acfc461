/**
 * The example application's optional stack (examples/app/infra/stack.ts): the template it synthesizes, and
 * its Lambda bundle, built with the service's bundling settings, answering API Gateway events in a fresh
 * Node process against the real service: the page, Secure cookies, and the spec's ID-login errors.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { esbuildOptions, PROJECT_ROOT } from '../../lib/bundling.js';
import { buildPage, PUBLIC_DIR } from '../../examples/app/build.js';
import { ExampleAppStack } from '../../examples/app/infra/stack.js';
import { ID_LOGIN_ERRORS } from '../../examples/app/server/sign-in.js';
import { EXAMPLE_APP_PERMISSIONS } from '../../examples/app/local.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { ServiceSetup } from '../../examples/app/demo.js';

const PROPS = {
  serviceUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com',
  saasId: 'saas-1',
  apiKey: 'key-1',
  apiKeySecret: 'example-app/api-key-secret',
};

describe('the example app stack template', () => {
  // Bundling skipped: the bundle is tested below, from the same settings.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const template = Template.fromStack(new ExampleAppStack(app, 'Example', PROPS));
  const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

  it('is one Node 22 ARM64 function behind an HTTP API whose default route goes to it', () => {
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.hasResourceProperties('AWS::Lambda::Function', { Runtime: 'nodejs22.x', Architectures: ['arm64'] });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
    assert.ok(template.findOutputs('AppUrl'));
  });

  it('gives the function the service address and key, and the secret only as a Secrets Manager reference', () => {
    const fn = Object.values(json.Resources).find((r) => r.Type === 'AWS::Lambda::Function');
    const env = (fn?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.equal(env.SAASUS_API_URL_BASE, PROPS.serviceUrl);
    assert.equal(env.SAASUS_SAAS_ID, PROPS.saasId);
    assert.equal(env.SAASUS_API_KEY, PROPS.apiKey);
    assert.match(JSON.stringify(env.SAASUS_SECRET_KEY), /\{\{resolve:secretsmanager:example-app\/api-key-secret:SecretString/);
  });
});

const INVOKE = `const [url, events] = process.argv.slice(1);
const { handler } = await import(url);
const answers = [];
for (const event of JSON.parse(events)) answers.push(await handler(event));
process.stdout.write('ANSWERS ' + JSON.stringify(answers) + '\\n');`;

interface LambdaAnswer {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: string;
}

describe('the example app Lambda bundle', () => {
  let h: Harness;
  let dir: string;
  let bundle: string;
  let env: Record<string, string>;
  let setup: ServiceSetup;

  beforeAll(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'example-app-bundle-'));
    bundle = join(dir, 'index.mjs');
    await buildPage();
    await build({ ...esbuildOptions('public', bundle), entryPoints: [`${PROJECT_ROOT}examples/app/server/lambda.ts`] });
    // What the stack's afterBundling hook does.
    cpSync(PUBLIC_DIR, join(dir, 'public'), { recursive: true });
    const { saasId, client } = await h.newSaas();
    setup = new ServiceSetup(client);
    await setup.ensureDefinitions();
    const key = await h.newKey(saasId, EXAMPLE_APP_PERMISSIONS);
    env = {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'silent',
      SAASUS_API_URL_BASE: new URL(h.api.baseUrl).origin,
      SAASUS_SAAS_ID: saasId,
      SAASUS_API_KEY: key.credentials.apiKey,
      SAASUS_SECRET_KEY: key.credentials.secret,
    };
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  const event = (method: string, rawPath: string, extra: Record<string, unknown> = {}) => ({
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: { host: 'app.example.com' },
    requestContext: { http: { method, path: rawPath } },
    isBase64Encoded: false,
    ...extra,
  });

  /** The bundle in a new process; asynchronous, as the service it calls runs in this one. */
  function invoke(events: unknown[]): Promise<LambdaAnswer[]> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', INVOKE, pathToFileURL(bundle).href, JSON.stringify(events)], { env });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => {
        const line = out.split('\n').find((l) => l.startsWith('ANSWERS '));
        if (code !== 0 || !line) return reject(new Error(`the bundle failed (${code}): ${err}${out}`));
        resolve(JSON.parse(line.slice('ANSWERS '.length)) as LambdaAnswer[]);
      });
    });
  }

  it('serves the page, sets Secure cookies, and reads tenants through the service', async () => {
    const bare = await setup.createTenant('No login domain');
    const [page, csrf, badBody, noDomain] = await invoke([
      event('GET', '/'),
      event('GET', '/csrf'),
      event('POST', '/challenge-id', { body: Buffer.from('{oops').toString('base64'), isBase64Encoded: true }),
      event('POST', '/challenge-id', { body: JSON.stringify({ user_id: 'taro', tenant_id: bare, srp_a: 'ab' }) }),
    ]);
    assert.equal(page?.statusCode, 200);
    assert.ok(page?.headers['content-type']?.startsWith('text/html'));
    assert.match(Buffer.from(page?.body ?? '', 'base64').toString('utf8'), /<title[^>]*>Example SaaS/);
    assert.equal(csrf?.statusCode, 200);
    assert.match(csrf?.cookies[0] ?? '', /^csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    assert.deepEqual([badBody?.statusCode, JSON.parse(badBody?.body ?? '{}')], [400, { success: false, message: ID_LOGIN_ERRORS.invalidRequest }]);
    assert.deepEqual([noDomain?.statusCode, JSON.parse(noDomain?.body ?? '{}')], [400, { success: false, message: ID_LOGIN_ERRORS.noLoginDomain }]);
  });

  it('passes the cookies of payload format 2.0 to the app', async () => {
    const [refused, allowed] = await invoke([
      event('POST', '/sign-out', {
        cookies: ['csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        headers: { 'x-csrf-token': 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' },
      }),
      event('POST', '/sign-out', {
        cookies: ['csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        headers: { 'X-CSRF-Token': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      }),
    ]);
    assert.equal(refused?.statusCode, 403);
    assert.equal(allowed?.statusCode, 200);
    assert.equal(allowed?.cookies.length, 3);
    assert.ok(allowed?.cookies.every((c) => c.includes('Max-Age=0') && c.endsWith('Secure')));
  });
});
