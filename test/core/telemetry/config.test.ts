// Where spans go, read as the OpenTelemetry specification configures an OTLP exporter (core/telemetry/config.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOtlpHeaders, telemetryFromEnv, tracesUrl } from '../../../core/telemetry/config';

describe('telemetry configuration', () => {
  test("a collector's base gets /v1/traces; a traces URL is kept", () => {
    assert.equal(tracesUrl('http://127.0.0.1:4318'), 'http://127.0.0.1:4318/v1/traces');
    assert.equal(tracesUrl('https://cloud.langfuse.com/api/public/otel/'), 'https://cloud.langfuse.com/api/public/otel/v1/traces');
    assert.equal(tracesUrl('http://h:6006/v1/traces'), 'http://h:6006/v1/traces');
  });

  test('OTEL_EXPORTER_OTLP_HEADERS: comma-separated key=value pairs, percent-decoded', () => {
    assert.deepEqual(parseOtlpHeaders('Authorization=Basic%20cGs6c2s=, x-team = art,broken'), { Authorization: 'Basic cGs6c2s=', 'x-team': 'art' });
    assert.deepEqual(parseOtlpHeaders(undefined), {});
  });

  test('the variables: the traces endpoint as it is, else the base with /v1/traces; traces headers over the common ones', () => {
    assert.deepEqual(telemetryFromEnv({}), { endpoint: undefined, headers: {}, serviceName: undefined, resource: {}, content: false });
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=3',
      OTEL_SERVICE_NAME: 'team-runs',
      OTEL_RESOURCE_ATTRIBUTES: 'openinference.project.name=art,team=nlp',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    };
    assert.deepEqual(telemetryFromEnv(env), {
      endpoint: 'http://collector:4318/v1/traces',
      headers: { a: '1', b: '3' },
      serviceName: 'team-runs',
      resource: { 'openinference.project.name': 'art', team: 'nlp' },
      content: true,
    });
    assert.equal(telemetryFromEnv({ ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/custom' }).endpoint, 'http://tempo:4318/custom');
  });
});
