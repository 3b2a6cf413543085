/**
 * The bank's page as deployed: CloudFront answers with a response headers policy that sends the
 * page's content security policy (the one the browser test runs the page under), HSTS, no
 * framing, no sniffing and no referrer, and only over HTTPS.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { pagePolicy } from '../../examples/bank/src/web/pageFiles.ts';
import { bankStack } from '../../infra/lib/bankStack.ts';

// The functions' bundles do not change the template: bundling is skipped (synth.test.ts bundles).
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const { stack } = bankStack(app);
const template = Template.fromStack(stack);

describe('the bank page on CloudFront', () => {
  it('is sent with its content security policy, HSTS for a year, no framing, no sniffing and no referrer', () => {
    const policies = template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    expect(Object.keys(policies)).toHaveLength(1);
    const [id, policy] = Object.entries(policies)[0]!;
    const headers = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(headers).toMatchObject({
      StrictTransportSecurity: {
        AccessControlMaxAgeSec: 365 * 24 * 3600,
        IncludeSubdomains: true,
        Override: true,
      },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      ContentSecurityPolicy: { Override: true },
    });
    // The policy names the WebSocket API's endpoint, a deploy-time value: compare around it.
    const csp = headers.ContentSecurityPolicy.ContentSecurityPolicy;
    const [before, after] = pagePolicy('<api>').split('<api>');
    expect(csp['Fn::Join'][1][0]).toBe(before);
    expect(csp['Fn::Join'][1][1]).toMatchObject({
      'Fn::GetAtt': [expect.any(String), 'ApiEndpoint'],
    });
    expect(csp['Fn::Join'][1][2]).toBe(after);
    expect(`${before}${after}`).toContain("frame-ancestors 'none'");

    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          ResponseHeadersPolicyId: { Ref: id },
          ViewerProtocolPolicy: 'redirect-to-https',
        }),
      }),
    });
  });
});
