// An HTTP server of the tests on 127.0.0.1 on a port the system chose, closed at once (keep-alive connections and
// requests still being answered would otherwise hold `close` open): the base of the zoo's endpoints and the proxy.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class LoopbackServer {
  private server: Server | null = null;

  /** `http://127.0.0.1:PORT/v1`, the base URL an OpenAI client takes. */
  get baseURL(): string {
    const a = this.server?.address() as AddressInfo | null;
    if (!a) throw new Error(`${this.constructor.name} is not listening`);
    return `http://127.0.0.1:${a.port}/v1`;
  }

  /** Listens with `handler`; resolves once listening. */
  protected async listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<this> {
    const server = createServer(handler);
    this.server = server;
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Stops listening and ends every connection now. */
  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    const closed = new Promise<void>(resolve => s.close(() => resolve()));
    s.closeAllConnections();
    await closed;
  }
}
