/**
 * The bank's page on S3 behind CloudFront: `index.html` names the deployed WebSocket URL (a
 * deploy-time value), `page.js` is the page bundled at synth. The bucket is private; CloudFront
 * reads it through origin access control, and answers with security headers: a content security
 * policy that lets the page run only its own script and talk only to its WebSocket API, HSTS,
 * no framing, no sniffing, no referrer.
 */
import {
  type CfnElement,
  CfnOutput,
  DefaultStackSynthesizer,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { pageHtml, pagePolicy, pageScript } from '../../examples/bank/src/web/pageFiles.ts';

export interface BankPageProps {
  /** What the page connects to: `wss://<api>.execute-api.<region>.amazonaws.com/<stage>`. */
  readonly webSocketUrl: string;
  /** That URL's origin, `wss://<api>.execute-api.<region>.amazonaws.com`: all the page may reach. */
  readonly webSocketOrigin: string;
}

export class BankPage extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly headers: cloudfront.ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: BankPageProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY, // emptied by the deployment below when it goes
    });
    this.headers = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Baton bank page: CSP, HSTS, no framing, no sniffing, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: pagePolicy(props.webSocketOrigin),
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: {
          referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER,
          override: true,
        },
      },
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Baton bank page',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: this.headers,
      },
    });
    new BucketDeployment(this, 'Upload', {
      // The upload function's own logs, kept as long as the app's.
      logGroup: new logs.LogGroup(this, 'UploadLogs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
      destinationBucket: this.bucket,
      sources: [
        Source.data('index.html', pageHtml(props.webSocketUrl)),
        Source.data('page.js', pageScript()),
      ],
      distribution: this.distribution,
      retainOnDelete: false,
    });
    // On the stack, so that the output is named PageUrl rather than after this construct's path.
    new CfnOutput(Stack.of(this), 'PageUrl', {
      value: `https://${this.distribution.distributionDomainName}/`,
      description: 'The bank page',
    });
    this.#acknowledge();
  }

  /** The cdk-nag findings an example page accepts, each with its reason. */
  #acknowledge(): void {
    const example = 'an example page with no user data; a production site turns it on';
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: `Server access logs: ${example}.`,
    });
    const acknowledge = (id: string, reason: string) =>
      Validations.of(this.distribution).acknowledge({ id, reason });
    acknowledge('AwsSolutions-CFR1', 'Geo restrictions: the example is for anyone, anywhere.');
    acknowledge('AwsSolutions-CFR2', `AWS WAF: ${example}.`);
    acknowledge('AwsSolutions-CFR3', `Access logging: ${example}.`);
    acknowledge(
      'AwsSolutions-CFR4',
      'The default CloudFront certificate allows TLS 1.0; a custom domain with its own certificate sets TLS 1.2.',
    );
    // The upload's function is a singleton the CDK adds to the stack.
    for (const child of Stack.of(this).node.children) {
      if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
      const reason = (what: string) =>
        `The CDK's BucketDeployment function, run at deploy only: ${what}.`;
      Validations.of(child).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: reason('its logging policy is the CDK’s'),
      });
      Validations.of(child).acknowledge({
        id: 'AwsSolutions-L1',
        reason: reason('its runtime is the CDK’s'),
      });
      const files = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
      const assets = `cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-<AWS::AccountId>-<AWS::Region>`;
      const wildcards = [
        'Action::s3:GetObject*',
        'Action::s3:GetBucket*',
        'Action::s3:List*',
        'Action::s3:DeleteObject*',
        'Action::s3:Abort*',
        `Resource::arn:<AWS::Partition>:s3:::${assets}/*`,
        `Resource::<${files}.Arn>/*`,
        'Resource::*',
      ];
      for (const finding of wildcards) {
        Validations.of(child).acknowledge({
          id: `AwsSolutions-IAM5[${finding}]`,
          reason: reason(
            'it copies the page from the asset bucket into this one and invalidates the distribution, with the grants the CDK gives it',
          ),
        });
      }
    }
  }
}
