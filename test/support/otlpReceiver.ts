// An OTLP/HTTP trace receiver on 127.0.0.1 for tests and benchmarks: it takes what the exporter sends (protobuf,
// `application/x-protobuf`, as Phoenix wants it), decodes the ExportTraceServiceRequest with a small protobuf wire
// reader (the fields of opentelemetry/proto/trace/v1 the tests read), and keeps every request's headers, raw body
// and spans. It can answer 200, answer 500, or hold each request without answering (a slow collector).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttrValue = string | number | boolean | AttrValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** Milliseconds since the epoch. */
  start: number;
  end: number;
  attributes: Record<string, AttrValue>;
  events: { name: string; at: number; attributes: Record<string, AttrValue> }[];
  status: { code: number; message: string };
  resource: Record<string, AttrValue>;
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type ReceiverMode = 'ok' | 'error-500' | 'hang';

export class OtlpReceiver {
  readonly requests: ReceivedRequest[] = [];
  mode: ReceiverMode = 'ok';
  /** The bodies taken (answered 200), decoded when the spans are read. */
  private taken: Buffer[] = [];
  private decoded: ReceivedSpan[] = [];
  private server: Server | undefined;
  private held: ServerResponse[] = [];
  private waiters: (() => void)[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>(done => this.server!.listen(0, '127.0.0.1', done));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }
  /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT's form). */
  get baseURL(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The spans of the requests answered 200, in order. */
  get spans(): ReceivedSpan[] {
    for (const body of this.taken.splice(0)) this.decoded.push(...decodeTraces(body));
    return this.decoded;
  }

  /** Forgets every request and span received. */
  clear(): void {
    this.requests.length = 0;
    this.taken = [];
    this.decoded = [];
  }

  /** Resolves once `predicate` holds of the spans received (checked at each request). */
  async waitFor(predicate: (spans: ReceivedSpan[]) => boolean): Promise<void> {
    while (!predicate(this.spans)) await new Promise<void>(done => this.waiters.push(done));
  }

  /** How many requests were answered 200 since the start (never cleared). */
  answered = 0;

  /** Resolves once `n` requests in all were answered 200 (nothing decoded: the benchmark's wait). */
  async waitForAnswered(n: number): Promise<void> {
    while (this.answered < n) await new Promise<void>(done => this.waiters.push(done));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      this.requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (this.mode === 'hang') {
        this.held.push(res);
        return;
      }
      if (this.mode === 'error-500') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('collector error');
        return;
      }
      this.taken.push(body);
      this.answered++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      const waiting = this.waiters;
      this.waiters = [];
      for (const w of waiting) w();
    });
  }

  async close(): Promise<void> {
    for (const r of this.held) r.destroy();
    this.held = [];
    this.server?.closeAllConnections();
    await new Promise<void>(done => (this.server ? this.server.close(() => done()) : done()));
  }
}

// ---- a protobuf wire reader, enough for ExportTraceServiceRequest ----

type Field = { no: number; wire: number; varint?: bigint; bytes?: Buffer; fixed64?: Buffer };

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const no = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) out.push({ no, wire, varint: varint() });
    else if (wire === 1) out.push({ no, wire, fixed64: buf.subarray(i, (i += 8)) });
    else if (wire === 2) {
      const len = Number(varint());
      out.push({ no, wire, bytes: buf.subarray(i, (i += len)) });
    } else if (wire === 5) i += 4;
    else throw new Error(`protobuf: unsupported wire type ${wire}`);
  }
  return out;
}

const str = (f: Field | undefined) => (f?.bytes ? f.bytes.toString('utf8') : '');
const hex = (f: Field | undefined) => (f?.bytes ? f.bytes.toString('hex') : '');
const nanosToMs = (f: Field | undefined) => (f?.fixed64 ? Number(f.fixed64.readBigUInt64LE() / 1000n) / 1000 : 0);

function anyValue(buf: Buffer): AttrValue {
  const f = fields(buf)[0];
  if (!f) return '';
  switch (f.no) {
    case 1:
      return str(f);
    case 2:
      return f.varint === 1n;
    case 3:
      return Number(BigInt.asIntN(64, f.varint!));
    case 4:
      return f.fixed64!.readDoubleLE();
    case 5:
      return fields(f.bytes!)
        .filter(v => v.no === 1)
        .map(v => anyValue(v.bytes!));
    default:
      return '';
  }
}

function attributes(list: Field[]): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const kv of list) {
    const fs = fields(kv.bytes!);
    const key = str(fs.find(f => f.no === 1));
    const value = fs.find(f => f.no === 2);
    out[key] = value ? anyValue(value.bytes!) : '';
  }
  return out;
}

/** The spans of an ExportTraceServiceRequest (protobuf). */
export function decodeTraces(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of fields(body).filter(f => f.no === 1)) {
    const rsFields = fields(rs.bytes!);
    const resourceField = rsFields.find(f => f.no === 1);
    const resource = resourceField ? attributes(fields(resourceField.bytes!).filter(f => f.no === 1)) : {};
    for (const ss of rsFields.filter(f => f.no === 2)) {
      for (const sp of fields(ss.bytes!).filter(f => f.no === 2)) {
        const s = fields(sp.bytes!);
        const one = (no: number) => s.find(f => f.no === no);
        const statusFields = one(15)?.bytes ? fields(one(15)!.bytes!) : [];
        spans.push({
          traceId: hex(one(1)),
          spanId: hex(one(2)),
          parentSpanId: hex(one(4)),
          name: str(one(5)),
          kind: Number(one(6)?.varint ?? 0n),
          start: nanosToMs(one(7)),
          end: nanosToMs(one(8)),
          attributes: attributes(s.filter(f => f.no === 9)),
          events: s
            .filter(f => f.no === 11)
            .map(e => {
              const ef = fields(e.bytes!);
              return {
                at: nanosToMs(ef.find(f => f.no === 1)),
                name: str(ef.find(f => f.no === 2)),
                attributes: attributes(ef.filter(f => f.no === 3)),
              };
            }),
          status: { message: str(statusFields.find(f => f.no === 2)), code: Number(statusFields.find(f => f.no === 3)?.varint ?? 0n) },
          resource,
        });
      }
    }
  }
  return spans;
}
