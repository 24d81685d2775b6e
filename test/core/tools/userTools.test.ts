import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createToolRegistry, type ToolRegistry } from '../../../core/tools/registry';
import { describeTool, parseToolsFile, toolsFileJsonSchema } from '../../../core/tools/toolsFile';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { processesWith } from '../../support/processes';
import { until } from '../../support/until';
import { REPO, ctx } from './helpers';

const SECRET = 'sk-user-tool-secret-42';
const MCP_SERVER = join(REPO, 'test/fixtures/mcp-tools-server.mjs');

let workspace: string;
let server: Server;
let url: string;
const received: unknown[] = [];

before(async () => {
  process.env.ART_TEST_SECRET = SECRET;
  workspace = await mkdtemp(join(tmpdir(), 'art-ws-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', c => {
      body += c;
    });
    req.on('end', () => {
      const json = JSON.parse(body) as { instruction: string; previousAnswer: string | null };
      received.push(json);
      if (req.url === '/json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ output: `${json.instruction.toUpperCase()} / ${json.previousAnswer}` }));
      } else if (req.url === '/text') {
        res.setHeader('content-type', 'text/plain');
        res.end(`echo: ${json.instruction}\n`);
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 3000).unref();
      } else {
        res.statusCode = 500;
        res.end('server exploded');
      }
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  delete process.env.ART_TEST_SECRET;
  server.closeAllConnections();
  await new Promise(r => server.close(r));
  await rm(workspace, { recursive: true, force: true });
});

async function registryWith(tools: unknown[], trusted = true): Promise<ToolRegistry> {
  await writeFile(join(workspace, '.art-tools.json'), JSON.stringify({ tools }, null, 2));
  return createToolRegistry({ workspaceRoot: workspace, trusted });
}

describe('command tools', () => {
  test('argv placeholders, stdin, exit codes, timeouts, no inherited secrets', async () => {
    const reg = await registryWith([
      { kind: 'command', name: 'word count', command: ['wc', '-w'], description: 'Counts words.' },
      { kind: 'command', name: 'shout', command: ['sh', '-c', 'printf "%s!" "$1" | tr a-z A-Z', 'sh', '{input}'] },
      { kind: 'command', name: 'both', command: ['cat'], input: 'both' },
      { kind: 'command', name: 'fails', command: ['sh', '-c', 'echo "bad input" >&2; exit 3'] },
      { kind: 'command', name: 'sleeps', command: ['sleep', '10'], timeoutMs: 300 },
      { kind: 'command', name: 'env', command: ['sh', '-c', 'echo "secret=${ART_TEST_SECRET:-absent} mine=$MINE"'], env: { MINE: 'declared' } },
      { kind: 'command', name: 'missing', command: ['no-such-program-xyz'] },
    ]);
    try {
      assert.deepEqual(reg.problems, []);
      const run = (name: string, instruction: string, previousAnswer?: string) => reg.get(name)!.run({ instruction, previousAnswer }, ctx());
      const count = await run('Word Count', 'one two three');
      assert.ok(count.ok);
      assert.equal(count.output, '3');
      assert.equal(count.details?.exitCode, 0);
      assert.equal(((await run('shout', 'hello')) as { output: string }).output, 'HELLO!');
      assert.equal(((await run('both', 'instr', 'prev')) as { output: string }).output, 'instr\n\nprev');
      const failed = await run('fails', 'x');
      assert.equal(!failed.ok ? failed.error : '', '[fails] the command exited with code 3: bad input');
      const slow = await run('sleeps', 'x');
      assert.equal(!slow.ok ? slow.error : '', '[sleeps] timed out after 0.3 s');
      assert.equal(!slow.ok && slow.timedOut, true);
      assert.equal(((await run('env', 'x')) as { output: string }).output, 'secret=absent mine=declared');
      const missing = await run('missing', 'x');
      assert.match(
        !missing.ok ? missing.error : '',
        /^\[missing\] cannot run the command: "no-such-program-xyz" was not found.*\(fix "command" in \.art-tools\.json\)$/,
      );
      assert.equal(reg.catalog().get('word  count')?.origin, 'user');
      assert.equal(reg.catalog().get('word count')?.description, 'Counts words.');
    } finally {
      await reg.dispose();
    }
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>(r => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise(r => s.close(r));
  return port;
}

describe('http tools', () => {
  test('JSON and text replies, HTTP errors, timeouts, unreachable endpoints', async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}/tool`;
    const reg = await registryWith([
      { kind: 'http', name: 'upper', url: `${url}/json` },
      { kind: 'http', name: 'echo', url: `${url}/text` },
      { kind: 'http', name: 'broken', url: `${url}/error` },
      { kind: 'http', name: 'slow', url: `${url}/slow`, timeoutMs: 300 },
      { kind: 'http', name: 'nowhere', url: nowhere },
    ]);
    try {
      const upper = await reg.get('upper')!.run({ instruction: 'hello', previousAnswer: 'prev' }, ctx());
      assert.ok(upper.ok);
      assert.equal(upper.output, 'HELLO / prev');
      assert.deepEqual(received.at(-1), { tool: 'upper', instruction: 'hello', previousAnswer: 'prev' });
      const echo = await reg.get('echo')!.run({ instruction: 'hi' }, ctx());
      assert.ok(echo.ok);
      assert.equal(echo.output, 'echo: hi');
      const broken = await reg.get('broken')!.run({ instruction: 'x' }, ctx());
      assert.equal(!broken.ok ? broken.error : '', `[broken] ${url}/error answered HTTP 500: server exploded`);
      const slow = await reg.get('slow')!.run({ instruction: 'x' }, ctx());
      assert.equal(!slow.ok ? slow.error : '', '[slow] timed out after 300 ms');
      const unreachable = await reg.get('nowhere')!.run({ instruction: 'x' }, ctx());
      assert.equal(!unreachable.ok ? unreachable.error : '', `[nowhere] cannot reach ${nowhere}: ECONNREFUSED`);
    } finally {
      await reg.dispose();
    }
  });
});

describe('http tools and redirects (issue 8, item 7)', () => {
  test("a 307 to another host is a tool error naming the location; the tool's headers never reach that host", async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.end('stolen');
    });
    await new Promise<void>(resolve => other.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(other.address() as AddressInfo).port}/collect`;
    const redirector = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: target });
      res.end();
    });
    await new Promise<void>(resolve => redirector.listen(0, '127.0.0.1', resolve));
    const from = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/tool`;
    const reg = await registryWith([{ kind: 'http', name: 'moved', url: from, headers: { 'X-Api-Key': 'tool-secret-123' } }]);
    try {
      const r = await reg.get('moved')!.run({ instruction: 'x' }, ctx());
      assert.equal(
        !r.ok ? r.error : '',
        `[moved] ${from} answered HTTP 307, a redirect to ${target}: redirects are not followed (fix "url" in the tool file to the final address)`,
      );
      assert.deepEqual(seen, []);
    } finally {
      await reg.dispose();
      redirector.close();
      other.close();
    }
  });
});

describe('MCP tools', () => {
  test("a stdio MCP server's tools become ART tools", async () => {
    const reg = await registryWith([{ kind: 'mcp', name: 'test server', command: [process.execPath, MCP_SERVER], prefix: 'mcp ' }]);
    try {
      assert.deepEqual(reg.problems, []);
      const reverse = await reg.get('mcp reverse')!.run({ instruction: 'stressed' }, ctx());
      assert.deepEqual(reverse.ok && reverse.output, 'desserts');
      const add = await reg.get('MCP add')!.run({ instruction: '{"a": 2, "b": 40}' }, ctx());
      assert.deepEqual(add.ok && add.output, '42');
      const addText = await reg.get('mcp add')!.run({ instruction: 'two and forty' }, ctx());
      assert.match(!addText.ok ? addText.error : '', /^\[mcp add\] takes the arguments "a", "b": write the input as a JSON object/);
      const broken = await reg.get('mcp broken')!.run({ instruction: 'x' }, ctx());
      assert.equal(!broken.ok ? broken.error : '', '[mcp broken] the broken tool always fails');
      const env = await reg.get('mcp env')!.run({ instruction: 'x' }, ctx());
      assert.deepEqual(env.ok && env.output, 'secret=absent');
      const missing = await reg.get('mcp nothing-like-it')!.run({ instruction: 'x' }, ctx());
      assert.match(
        !missing.ok ? missing.error : '',
        /^\[mcp nothing-like-it\] the MCP server test server has no such tool \(it offers "mcp reverse", "mcp add", "mcp broken", "mcp env"; fix the step or "prefix" in \.art-tools\.json\)$/,
      );
      assert.equal(reg.get('reverse'), undefined, 'a name without the prefix is not its tool');
    } finally {
      await reg.dispose();
    }
  });

  test('a mapping selects and renames tools; a wrong mapping or command is a problem, not a crash', async () => {
    const reg = await registryWith([
      { kind: 'mcp', command: [process.execPath, MCP_SERVER], tools: { reverse: 'flip' } },
      { kind: 'mcp', name: 'bad map', command: [process.execPath, MCP_SERVER], tools: { nope: 'nope tool' } },
      { kind: 'mcp', name: 'no server', command: ['no-such-mcp-server-xyz'] },
    ]);
    try {
      assert.equal(((await reg.get('flip')!.run({ instruction: 'ab' }, ctx())) as { output: string }).output, 'ba');
      assert.equal(reg.get('add'), undefined);
      // A server that must start to name its tools is started with the run; one whose tools are named, by its first call.
      assert.equal(reg.problems.length, 1);
      assert.match(reg.problems[0], /^\.art-tools\.json: the MCP server no server did not start: .*\(fix "command" in \.art-tools\.json\)$/);
      const nope = await reg.get('nope tool')!.run({ instruction: 'x' }, ctx());
      assert.match(
        !nope.ok ? nope.error : '',
        /^\[nope tool\] \.art-tools\.json: the MCP server bad map has no tool "nope" \(fix "tools": it offers "reverse", "add", "broken", "env"\)$/,
      );
    } finally {
      await reg.dispose();
    }
  });
});

describe('tool file', () => {
  test('errors are one line each, naming the file, the place and the fix', () => {
    const bad = (text: string) => parseToolsFile(text, '.art-tools.json').errors;
    assert.deepEqual(bad('{ "tools": [ { "kind": "command", "name": "x", "command": "wc -w" } ] }'), [
      '.art-tools.json: tools[0].command: Invalid input: expected array, received string (fix: write the command as an array of strings, e.g. ["python3", "tool.py", "{input}"])',
    ]);
    assert.match(
      bad('{ "tools": [ { "kind": "shell", "name": "x" } ] }')[0],
      /^\.art-tools\.json: tools\[0\]\.kind: .* \(fix: set "kind" to "command", "http" or "mcp"\)$/,
    );
    assert.match(
      bad('{ "tools": [ { "kind": "http", "name": "x", "url": "ftp://h/x" } ] }')[0],
      /tools\[0\]\.url: expected an http:\/\/ or https:\/\/ URL/,
    );
    assert.match(
      bad('{ "tools": [ { "kind": "command", "name": "x", "comand": ["a"], "command": ["a"] } ] }')[0],
      /tools\[0\]: Unrecognized key: "comand" \(fix: remove "comand", or check its spelling\)/,
    );
    assert.match(
      bad('{ "tools": [ { "kind": "command", "name": "a]b", "command": ["a"] } ] }')[0],
      /tools\[0\]\.name: a tool name cannot contain "\]" or a line break/,
    );
    assert.deepEqual(bad('{ "tools": [\n  { "kind": "command", "name": "x" "command": ["a"] } ] }').length, 1);
    assert.match(
      bad('{ "tools": [\n  { "kind": "command", "name": "x" "command": ["a"] } ] }')[0],
      /^\.art-tools\.json at line 2, column \d+: invalid JSON: .* \(fix: correct the JSON syntax\)$/,
    );
    assert.match(
      bad('{ "tools": [ { "kind": "command", "name": "Dup", "command": ["a"] }, { "kind": "http", "name": "dup", "url": "http://x/" } ] }')[0],
      /tools\[1\]: the tool name "dup" is already declared at tools\[0\] \(fix: rename one of them\)/,
    );
    for (const e of bad('{ "tools": [ { "kind": "command" } ], "extra": 1 }')) assert.doesNotMatch(e, /\n/);
  });

  test('a broken file is reported by the registry and the built-ins still work', async () => {
    await writeFile(join(workspace, '.art-tools.json'), '{ "tools": 3 }');
    const reg = await createToolRegistry({ workspaceRoot: workspace, trusted: true });
    assert.equal(reg.problems.length, 1);
    assert.match(reg.problems[0], /^\.art-tools\.json: tools: /);
    assert.ok(reg.get('calculator'));
    const explicit = await createToolRegistry({ workspaceRoot: workspace, trusted: true, toolsFile: 'missing-tools.json' });
    assert.match(explicit.problems[0], /^missing-tools\.json: cannot be read \(ENOENT\)/);
  });

  test('schemas/art-tools.schema.json is the zod schema (set ART_UPDATE_SCHEMA=1 to regenerate)', async () => {
    const file = join(REPO, 'schemas/art-tools.schema.json');
    const expected = JSON.stringify(toolsFileJsonSchema(), null, 2) + '\n';
    if (process.env.ART_UPDATE_SCHEMA === '1') await writeFile(file, expected);
    assert.equal(await readFile(file, 'utf8'), expected);
    const schema = JSON.parse(expected) as { properties: { tools: { items: { oneOf: { properties: { kind: { const: string } } }[] } } } };
    assert.deepEqual(
      schema.properties.tools.items.oneOf.map(o => o.properties.kind.const),
      ['command', 'http', 'mcp'],
    );
  });
});

describe('tool file safety and descriptions (issue 8, item 8; issue 7, item 5)', () => {
  test('a shell line built from the model\'s text is warned about, at its "command"; the safe forms are not', () => {
    const text = JSON.stringify(
      {
        tools: [
          { kind: 'command', name: 'unsafe', command: ['sh', '-c', 'grep {input} notes.txt'] },
          { kind: 'command', name: 'positional', command: ['sh', '-c', 'grep "$1" notes.txt', 'sh', '{input}'] },
          { kind: 'command', name: 'plain', command: ['grep', '-F', '--', '{input}', 'notes.txt'] },
          { kind: 'command', name: 'last', command: ['grep', '-r', 'notes', '{input}'] },
          { kind: 'command', name: 'attached', command: ['grep', '--regexp={input}', 'notes.txt'] },
          { kind: 'command', name: 'stdin', command: ['bash', '-c', 'tr a-z A-Z'] },
        ],
      },
      null,
      2,
    );
    const loaded = parseToolsFile(text, '.art-tools.json');
    assert.deepEqual(loaded.errors, []);
    assert.equal(loaded.warnings?.length, 1);
    assert.match(
      loaded.warnings![0],
      /^\.art-tools\.json: tools\[0\]\.command: the model's text goes into a shell line[^\n]*\(fix: pass each placeholder as an argument of its own/,
    );
    const [p] = loaded.problems!;
    assert.equal(p.severity, 'warning');
    assert.equal(text.slice(p.start, p.end).replace(/\s+/g, ''), '["sh","-c","grep{input}notes.txt"]');
  });

  // Issue 20 item 9: a placeholder before other arguments is read as an option when the model's text starts with "-".
  test('a placeholder in the middle of a command, with no "--" before it, is warned about at that argument', () => {
    const text = JSON.stringify(
      {
        tools: [
          { kind: 'command', name: 'sort', command: ['sort', '{input}', 'list.txt'] },
          { kind: 'command', name: 'prefixed', command: ['cat', '{input}.txt', 'more.txt'] },
          { kind: 'command', name: 'ended', command: ['sort', '--', '{input}', 'list.txt'] },
          { kind: 'command', name: 'script', command: ['sh', '-c', 'sort "$1" list.txt', 'sh', '{input}', 'x'] },
        ],
      },
      null,
      2,
    );
    const loaded = parseToolsFile(text, '.art-tools.json');
    assert.deepEqual(loaded.errors, []);
    assert.deepEqual(loaded.warnings, [
      '.art-tools.json: tools[0].command[1]: "{input}" comes before other arguments, so the model\'s text can be read as an option (such as --output=FILE) (fix: put "--" before it, ["sort", "--", "{input}", "list.txt"], make it the last argument, or give the input on standard input)',
      '.art-tools.json: tools[1].command[1]: "{input}.txt" comes before other arguments, so the model\'s text can be read as an option (such as --output=FILE) (fix: put "--" before it, ["cat", "--", "{input}.txt", "more.txt"], make it the last argument, or give the input on standard input)',
    ]);
    assert.deepEqual(
      loaded.problems!.map(p => [p.severity, text.slice(p.start, p.end)]),
      [
        ['warning', '"{input}"'],
        ['warning', '"{input}.txt"'],
      ],
    );
  });

  test('an input that starts with "-" comes after "--" in the plain form, not where an inline script reads its arguments', async () => {
    const reg = await registryWith([
      { kind: 'command', name: 'args', command: ['printf', '%s|', '{input}'] },
      { kind: 'command', name: 'script', command: ['sh', '-c', 'printf "%s|" "$@"', 'sh', '{input}'] },
    ]);
    try {
      assert.deepEqual(reg.problems, []);
      const run = async (name: string, instruction: string) => ((await reg.get(name)!.run({ instruction }, ctx())) as { output: string }).output;
      assert.equal(await run('args', '-rf'), '--|-rf|', 'printf gets "--" first');
      assert.equal(await run('args', 'plain'), 'plain|');
      assert.equal(await run('script', '-rf'), '-rf|', 'the script gets its argument as it is');
    } finally {
      await reg.dispose();
    }
  });

  test('hover (the tool file read statically) and the runner describe a user tool in the same words', async () => {
    const entries = [
      { kind: 'command' as const, name: 'count', command: ['wc', '-w'] },
      { kind: 'command' as const, name: 'grep', command: ['grep', '{input}', 'f.txt'], input: 'both' as const },
      { kind: 'http' as const, name: 'lookup api', url: 'http://127.0.0.1:9/tool' },
    ];
    const reg = await registryWith(entries);
    try {
      for (const e of entries) assert.deepEqual(reg.get(e.name)!.info, describeTool(e, e.name));
    } finally {
      await reg.dispose();
    }
  });

  test('a server whose tools are named starts with the first call, not with the run; closing it ends it and what it started (setsid too)', async () => {
    const marker = `${3300 + Math.random()}`.slice(0, 9);
    const started = join(workspace, `started-${marker}`);
    // A server that also leaves a child in a session of its own behind.
    const command = ['sh', '-c', `setsid sleep ${marker} & echo started > ${started}; exec "$0" "$1"`, process.execPath, MCP_SERVER];
    const reg = await registryWith([{ kind: 'mcp', name: 'lazy', command, prefix: 'lazy ' }]);
    try {
      assert.deepEqual(reg.problems, []);
      assert.ok(!existsSync(started), 'the server started before any step called it');
      const r = await reg.get('lazy reverse')!.run({ instruction: 'abc' }, ctx());
      assert.deepEqual(r.ok && r.output, 'cba');
      assert.ok(existsSync(started));
      assert.equal(processesWith(`sleep\0${marker}`).length, 1);
    } finally {
      await reg.dispose();
    }
    await until(() => processesWith(`sleep\0${marker}`).length === 0, { what: 'the setsid child of the server to end with it', timeoutMs: 5000 });
  });
});

describe('tool processes and the host', () => {
  test('a command tool and the child it started with setsid die with a host killed with -9', async () => {
    const marker = `${3400 + Math.random()}`.slice(0, 9);
    const dir = await mkdtemp(join(tmpdir(), 'art-host-'));
    await writeFile(
      join(dir, '.art-tools.json'),
      JSON.stringify({ tools: [{ kind: 'command', name: 'slow', command: ['sh', '-c', `setsid sleep ${marker} & exec sleep ${marker}`] }] }),
    );
    const script = join(dir, 'host.ts');
    await writeFile(
      script,
      `import { createToolRegistry } from ${JSON.stringify(join(REPO, 'core/tools/registry.ts'))};\n` +
        `void createToolRegistry({ workspaceRoot: ${JSON.stringify(dir)}, trusted: true }).then(r => r.get('slow')!.run({ instruction: 'x' }, { signal: new AbortController().signal, timeoutMs: 60000 }));\n`,
    );
    const host = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO, stdio: 'ignore' });
    try {
      await until(() => processesWith(`sleep\0${marker}`).length === 2, { what: 'the tool and its setsid child to run', timeoutMs: 15_000 });
      host.kill('SIGKILL');
      await until(() => processesWith(`sleep\0${marker}`).length === 0, {
        what: 'the processes of the tool to end with the killed host',
        timeoutMs: 5000,
      });
    } finally {
      host.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
