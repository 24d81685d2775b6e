// Where a run's OpenTelemetry traces go, as the OpenTelemetry specification configures an OTLP exporter: the
// standard environment variables (read by the CLI; VS Code has its art.telemetry.* settings instead) and the
// `otlp` run option (`--otlp URL`). Plain data: nothing here sends anything.

/** Where spans are sent and what they may hold. */
export interface TelemetryTarget {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  /** Sent with every export (Langfuse's `Authorization`, a vendor's API key): secrets, never put in a span. */
  headers: Record<string, string>;
  /** The `service.name` of the spans' resource. */
  serviceName: string;
  /** More attributes of the resource (OTEL_RESOURCE_ATTRIBUTES: Phoenix's `openinference.project.name`, a team). */
  resource?: Record<string, string>;
  /** Whether prompts, completions and tool inputs and outputs go into the spans (off unless asked for). */
  content: boolean;
}

export const DEFAULT_SERVICE_NAME = 'art-studio';
const TRACES_PATH = '/v1/traces';

/**
 * The traces URL of an OTLP/HTTP endpoint given as a collector's base (`http://127.0.0.1:4318`,
 * `https://cloud.langfuse.com/api/public/otel`): `/v1/traces` appended, as OTEL_EXPORTER_OTLP_ENDPOINT is read.
 * A URL whose path already ends in `/v1/traces` is the traces URL itself.
 */
export function tracesUrl(endpoint: string): string {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    const trimmed = endpoint.replace(/\/+$/, '');
    return trimmed.endsWith(TRACES_PATH) ? trimmed : `${trimmed}${TRACES_PATH}`;
  }
  // The path gets /v1/traces, not the query after it (a collector's key may sit in the query).
  const path = u.pathname.replace(/\/+$/, '');
  if (!path.endsWith(TRACES_PATH)) u.pathname = `${path}${TRACES_PATH}`;
  else u.pathname = path;
  return u.href;
}

/**
 * The headers of OTEL_EXPORTER_OTLP_HEADERS' form: `key=value` pairs separated by commas, each part
 * percent-decoded (W3C Baggage's format, as the specification says). A pair without `=` is left out.
 */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = decode(part.slice(0, eq).trim());
    if (key) out[key] = decode(part.slice(eq + 1).trim());
  }
  return out;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The values GenAI instrumentations read as "capture content" in OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT. */
const TRUE = /^(?:true|1|yes|on)$/i;

/**
 * What the CLI's environment configures: the traces endpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else
 * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces`), the headers (OTEL_EXPORTER_OTLP_HEADERS, then
 * OTEL_EXPORTER_OTLP_TRACES_HEADERS over them), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES (the same `key=value,...`
 * form), and whether content is captured
 * (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). No endpoint: nothing is sent.
 */
export function telemetryFromEnv(env: NodeJS.ProcessEnv): {
  endpoint?: string;
  headers: Record<string, string>;
  serviceName?: string;
  resource: Record<string, string>;
  content: boolean;
} {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return {
    endpoint: traces ? traces : base ? tracesUrl(base) : undefined,
    headers: { ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || undefined,
    resource: parseOtlpHeaders(env.OTEL_RESOURCE_ATTRIBUTES),
    content: TRUE.test(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? ''),
  };
}
