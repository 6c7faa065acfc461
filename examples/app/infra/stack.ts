/**
 * The example application on AWS, with the service's own patterns (lib/): one Node 22 ARM64 Lambda bundled
 * by esbuild with the service's settings (NODEJS_BUNDLING), behind an API Gateway HTTP API whose every route goes to it. The
 * login page's files are built at synth and copied beside the bundle. Optional: the service does not need
 * it; deploy it to see the sign-in flows against a deployed service.
 */
import { CfnOutput, Duration, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PROJECT_ROOT } from '../../../lib/bundling.js';
import { NODEJS_BUNDLING } from '../../../lib/group-function.js';
import { buildPageSync } from '../build.js';

export interface ExampleAppStackProps extends StackProps {
  /** The service's origin, as the SDKs take it (SAASUS_API_URL_BASE): `https://<api id>.execute-api.<region>.amazonaws.com`. */
  serviceUrl: string;
  saasId: string;
  /** An API key of that SaaS holding only `tenant:read` and `sign-in`. */
  apiKey: string;
  /** The Secrets Manager secret (name or ARN) whose value is that key's secret. */
  apiKeySecret: string;
}

const APP_DIR = `${PROJECT_ROOT}examples/app/`;

export class ExampleAppStack extends Stack {
  constructor(scope: Construct, id: string, props: ExampleAppStackProps) {
    super(scope, id, props);
    buildPageSync();

    const backend = new NodejsFunction(this, 'Backend', {
      entry: `${APP_DIR}server/lambda.ts`,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: Duration.seconds(10),
      logGroup: new LogGroup(this, 'BackendLogs', { retention: RetentionDays.ONE_MONTH }),
      environment: {
        SAASUS_API_URL_BASE: props.serviceUrl,
        SAASUS_SAAS_ID: props.saasId,
        SAASUS_API_KEY: props.apiKey,
        // Resolved by CloudFormation at deploy time: the secret is never in the template or the repository.
        SAASUS_SECRET_KEY: SecretValue.secretsManager(props.apiKeySecret).unsafeUnwrap(),
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        ...NODEJS_BUNDLING,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // The handler reads the page from ./public beside itself.
          afterBundling: (_input: string, output: string) => [`cp -R "${APP_DIR}public" "${output}/public"`],
        },
      },
    });

    const api = new HttpApi(this, 'Api', {
      description: 'The example SaaS application: login page and backend',
      defaultIntegration: new HttpLambdaIntegration('Backend', backend),
    });
    new CfnOutput(this, 'AppUrl', { value: api.apiEndpoint, description: 'The login page' });
  }
}
