// The OpenTelemetry SDK wiring, thin: a tracer provider per target (the official Node trace SDK, a batch span
// processor with a bounded queue, the OTLP/HTTP protobuf exporter), a trace sink per run that hands the run's spans
// (spans.ts, from the same records the trace file gets) to it when the run ends, and an evaluation's spans. Loaded
// only when telemetry is configured (session.ts imports it on demand). Sending is never waited for by a run: an
// unreachable, slow or failing collector is one line in the run's log and dropped spans, nothing more.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Duplex } from 'node:stream';
import { Redactor, redactUrl, urlSecrets } from '../common/redact';
import type { TraceRecord, TraceSink } from '../trace/schema';
import { telemetryFromEnv, type TelemetryTarget } from './config';
import { evaluationAttributes, exampleAttributes, runSpans, type ExampleOutcome, type RunInfo, type SpanOptions, type SpanPlan } from './spans';

/** Spans waiting to be sent, at most (older ones are kept, newer ones dropped, once it is full). */
export const MAX_QUEUE = 2048;
/** How long one export may take (retries included) before its spans are dropped. */
export const EXPORT_TIMEOUT_MS = 5000;
/**
 * How long the end of a command waits for its last spans to be sent (a collector that took none so far is not
 * waited for at all).
 */
export const EXIT_FLUSH_MS = 1000;

interface ExportResult {
  code: number;
  error?: Error;
}

/** The exporter, telling the first failure of each outage once (`log`) and nothing while it goes on. */
class ReportingExporter implements SpanExporter {
  /** An export failed and none succeeded since (the failure was told). */
  private isFailing = false;
  private onFailing: (() => void)[] = [];
  get failing(): boolean {
    return this.isFailing;
  }
  set failing(f: boolean) {
    this.isFailing = f;
    if (f) for (const done of this.onFailing.splice(0)) done();
  }
  /** Resolves when the collector is found failing (at once if it is). */
  whenFailing(): Promise<void> {
    return this.isFailing ? Promise.resolve() : new Promise(done => this.onFailing.push(done));
  }
  constructor(
    private readonly inner: SpanExporter,
    private readonly describe: (e: Error | undefined) => string,
    readonly report: { log?: (line: string) => void },
  ) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, result => {
      if (result.code !== 0) this.fail(result.error);
      else this.failing = false;
      done(result);
    });
  }
  /** A connection could not be made (the collector is down): told now, not after the exporter's retries. */
  unreachable(e: Error): void {
    this.fail(e);
  }
  /** The collector fails: said once, until an export succeeds again. */
  private fail(e: Error | undefined): void {
    if (this.failing) return;
    this.failing = true;
    this.report.log?.(this.describe(e));
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** A run's records as they come, turned into spans when the run ends (or is closed without an end). */
export interface RunTelemetrySink extends TraceSink {
  /** Sends what the run has if it was not sent (a run cut short); nothing after. */
  close(): void;
}

/** An evaluation's span and its examples' spans, each the parent of the example's runs. */
export interface EvaluationTelemetry {
  /** The context an example's runs start their spans in (its span is made the first time). */
  example(id: string): Context;
  /** The example ended with its score: its span ends. */
  exampleEnded(outcome: ExampleOutcome): void;
  /** The evaluation ended: examples left without a result end as stopped, then its span; the spans are sent. */
  end(results: readonly ExampleOutcome[], total: number, stopped: boolean): void;
}

/** Connection errors that say the collector is not there (not that it is slow). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * The exporter's HTTP agent (kept alive, as the exporter's own), watching its connections: one that cannot be made
 * because the collector is not there is told at once, so a run's end does not wait for the exporter's retries.
 */
function watchedAgent(protocol: string, unreachable: (e: NodeJS.ErrnoException) => void): http.Agent {
  const agent = protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const connect = agent.createConnection.bind(agent) as (...args: unknown[]) => Duplex;
  (agent as unknown as { createConnection: (...args: unknown[]) => Duplex }).createConnection = (...args: unknown[]) => {
    const socket = connect(...args);
    socket.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code && UNREACHABLE.has(e.code)) unreachable(e);
    });
    return socket;
  };
  return agent;
}

/** An export's failure in a few words: the HTTP status the collector answered, else the error's code or message. */
function whyFailed(e: (Error & { code?: number | string }) | undefined): string {
  if (!e) return 'export failed';
  if (typeof e.code === 'number') return `HTTP ${e.code}${e.message ? ` ${e.message}` : ''}`;
  return e.code ? `${e.code}: ${e.message}` : e.message || 'export failed';
}

export class Telemetry {
  private readonly provider: NodeTracerProvider;
  private readonly tracer: Tracer;
  private readonly report: { log?: (line: string) => void } = {};
  private readonly headerValues: string[];
  private readonly exporter: ReportingExporter;
  private readonly hide: Redactor;

  constructor(readonly target: TelemetryTarget) {
    // The SDK adds the headers of OTEL_EXPORTER_OTLP_HEADERS itself: their values are secrets too.
    // So are the user, password and query of the collector's URL, which no line shows either.
    this.headerValues = [...Object.values(target.headers), ...Object.values(telemetryFromEnv(process.env).headers), ...urlSecrets(target.url)];
    const hide = (this.hide = new Redactor(this.headerValues));
    const exporter = (this.exporter = new ReportingExporter(
      new OTLPTraceExporter({
        url: target.url,
        headers: { ...target.headers },
        timeoutMillis: EXPORT_TIMEOUT_MS,
        httpAgentOptions: protocol => watchedAgent(protocol, e => this.exporter.unreachable(e)),
      }),
      e =>
        hide.redact(
          redactUrl(
            `telemetry: cannot send spans to ${target.url} (${whyFailed(e)}): they are dropped, the runs go on (check the collector, --otlp or art.telemetry.endpoint)`,
            target.url,
          ),
        ),
      this.report,
    ));
    this.provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ ...target.resource, 'service.name': target.serviceName }),
      spanProcessors: [
        new BatchSpanProcessor(exporter, {
          maxQueueSize: MAX_QUEUE,
          maxExportBatchSize: 512,
          scheduledDelayMillis: 500,
          exportTimeoutMillis: EXPORT_TIMEOUT_MS,
        }),
      ],
    });
    this.tracer = this.provider.getTracer('art-studio');
  }

  /** Where the next failure is told (the latest run's log). */
  setLog(log: ((line: string) => void) | undefined): void {
    if (log) this.report.log = log;
  }

  private options(secrets: readonly (string | undefined)[]): SpanOptions {
    const redactor = new Redactor([...secrets, ...this.headerValues]);
    return { content: this.target.content, redact: s => redactor.redact(s) };
  }

  /** The sink of one run's records (`info` is read when the run ends: its title may be known only later). */
  runSink(info: RunInfo, secrets: readonly (string | undefined)[], parent: Context = ROOT_CONTEXT): RunTelemetrySink {
    const o = this.options(secrets);
    let records: TraceRecord[] = [];
    const send = () => {
      const plan = runSpans(records, info, o);
      records = [];
      if (plan) this.emit(plan, parent);
      this.flushSoon();
    };
    return {
      write: r => {
        if (r.t === 'chunk' || r.t === 'vote') return; // the completion has the text; the vote comes after the end
        if (r.t === 'run' && records.length) send();
        records.push(r.t === 'tool' ? { ...r, call: { ...r.call } } : { ...r });
        if (r.t === 'end') send();
      },
      close: () => {
        if (records.length) send();
      },
    };
  }

  evaluation(name: string, secrets: readonly (string | undefined)[], attributes: Record<string, string | number>): EvaluationTelemetry {
    const o = this.options(secrets);
    const span = this.tracer.startSpan(`evaluate ${o.redact(name)}`, {
      attributes: {
        'openinference.span.kind': 'CHAIN',
        ...Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, typeof v === 'string' ? o.redact(v) : v])),
      },
    });
    const inEvaluation = trace.setSpan(ROOT_CONTEXT, span);
    const examples = new Map<string, Span>();
    const exampleSpan = (id: string): Span => {
      let s = examples.get(id);
      if (!s)
        examples.set(id, (s = this.tracer.startSpan(`example ${o.redact(id)}`, { attributes: { 'art.eval.example': o.redact(id) } }, inEvaluation)));
      return s;
    };
    return {
      example: id => trace.setSpan(ROOT_CONTEXT, exampleSpan(id)),
      exampleEnded: outcome => {
        const s = exampleSpan(outcome.id);
        examples.delete(outcome.id);
        const attrs = exampleAttributes(outcome, o);
        s.setAttributes(attrs);
        for (const metric of ['exact', 'substring'] as const)
          s.addEvent('gen_ai.evaluation.result', {
            'gen_ai.evaluation.name': metric,
            'gen_ai.evaluation.score.value': outcome[metric] ? 1 : 0,
            'gen_ai.evaluation.score.label': outcome[metric] ? 'correct' : 'incorrect',
          });
        if (outcome.end === 'error') s.setStatus({ code: SpanStatusCode.ERROR, message: o.redact(outcome.error ?? 'error') });
        s.end();
      },
      end: (results, total, stopped) => {
        for (const s of examples.values()) {
          s.setAttribute('art.run.end_reason', 'stopped');
          s.end();
        }
        examples.clear();
        span.setAttributes(evaluationAttributes(results, total, stopped));
        span.end();
        this.flushSoon();
      },
    };
  }

  private emit(p: SpanPlan, parent: Context): void {
    const llm = p.attributes['openinference.span.kind'] === 'LLM';
    const span = this.tracer.startSpan(
      p.name,
      { startTime: p.start, attributes: p.attributes, kind: llm ? SpanKind.CLIENT : SpanKind.INTERNAL },
      parent,
    );
    for (const e of p.events) span.addEvent(e.name, e.attributes, e.at);
    if (p.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: p.error });
    const inside = trace.setSpan(parent, span);
    for (const c of p.children) this.emit(c, inside);
    span.end(p.end);
  }

  /** Starts sending what is queued, without waiting (a run's end never waits for the collector). */
  flushSoon(): void {
    this.provider.forceFlush().catch(() => undefined);
  }

  /**
   * Sends what is queued, waiting at most `timeoutMs` (not at all when the collector is failing: that was told), and
   * stops; spans not taken by then are dropped, said in one line. Never rejects.
   */
  async shutdown(timeoutMs = EXIT_FLUSH_MS): Promise<void> {
    const wait = this.exporter.failing ? 0 : timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>(done => {
      timer = setTimeout(() => done(false), wait);
      timer.unref?.();
    });
    const sent = await Promise.race([
      this.exporter.whenFailing().then(() => false),
      this.provider.shutdown().then(
        () => true,
        () => true,
      ),
      late,
    ]);
    clearTimeout(timer);
    if (sent || this.exporter.failing) return;
    this.exporter.failing = true; // told once: the export still going on fails quietly
    this.report.log?.(
      this.hide.redact(
        redactUrl(
          `telemetry: ${this.target.url} took no spans within ${wait} ms: the last ones are dropped (is the collector running and reachable?)`,
          this.target.url,
        ),
      ),
    );
  }
}

const open = new Map<string, Telemetry>();

/** The process's telemetry for `target` (one provider per endpoint, headers, service and content choice). */
export function telemetryFor(target: TelemetryTarget, log?: (line: string) => void): Telemetry {
  const key = JSON.stringify([target.url, target.headers, target.serviceName, target.resource, target.content]);
  let t = open.get(key);
  if (!t) open.set(key, (t = new Telemetry(target)));
  t.setLog(log);
  return t;
}

/** Sends what every telemetry of the process has queued (at most `timeoutMs`) and stops them: the end of a command. */
export async function shutdownTelemetry(timeoutMs = EXIT_FLUSH_MS): Promise<void> {
  const all = [...open.values()];
  open.clear();
  await Promise.all(all.map(t => t.shutdown(timeoutMs)));
}
