// docs/other-editors.md against the two files that declare the custom protocol messages (as rust-analyzer checks its
// lsp-extensions.md): every message declared in server/protocol.ts (LSP) and client/debugAdapter/protocol.ts (DAP)
// has its paragraph in the page, every field of its params, arguments, body or result is named there, the page lists
// no message that is not declared, and the page records a hash of each file's messages (names, fields and their types
// as the compiler reads them), so a change of a field's type fails here too until the page is read and its hash updated.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..');
const PAGE = 'docs/other-editors.md';
const FILES = ['server/protocol.ts', 'client/debugAdapter/protocol.ts'];
/** The members of a message's namespace that give the shape of what crosses the wire. */
const BODIES = ['Params', 'Result', 'Arguments', 'Body', 'Response'];

interface Message {
  /** `Request`, `Notification` or `Event`, as the page's paragraph names it. */
  kind: string;
  name: string;
  /** Each body member's fields: `Params.textDocument: TextDocumentIdentifier`, ... */
  fields: { name: string; signature: string }[];
}

/** The messages a protocol file declares: each namespace with a `method`, `event` or `command` constant. */
function declaredMessages(program: ts.Program, path: string): Message[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(ROOT, path));
  assert.ok(source, `${path} is not in the program`);
  const messages: Message[] = [];
  for (const statement of source.statements) {
    if (!ts.isModuleDeclaration(statement) || !statement.body || !ts.isModuleBlock(statement.body)) continue;
    const namespace = statement.name.text;
    let name: string | undefined;
    let key: string | undefined;
    const bodies: [string, ts.Node][] = [];
    for (const member of statement.body.statements) {
      if (ts.isVariableStatement(member)) {
        for (const d of member.declarationList.declarations) {
          const init = d.initializer && ts.isAsExpression(d.initializer) ? d.initializer.expression : d.initializer;
          if (ts.isIdentifier(d.name) && init && ts.isStringLiteral(init)) {
            key = d.name.text;
            name = init.text;
          }
        }
      } else if ((ts.isInterfaceDeclaration(member) || ts.isTypeAliasDeclaration(member)) && BODIES.includes(member.name.text)) {
        bodies.push([member.name.text, member.name]);
      }
    }
    if (!name || !key) continue;
    const kind = key === 'event' ? 'Event' : namespace.endsWith('Notification') ? 'Notification' : 'Request';
    const fields: Message['fields'] = [];
    for (const [body, node] of bodies) {
      const type = checker.getNonNullableType(checker.getTypeAtLocation(node));
      for (const property of checker.getPropertiesOfType(type)) {
        const declaration = property.valueDeclaration ?? property.declarations?.[0];
        const optional = property.flags & ts.SymbolFlags.Optional ? '?' : '';
        const propertyType = declaration ? checker.typeToString(checker.getTypeOfSymbolAtLocation(property, declaration)) : '';
        fields.push({ name: property.name, signature: `${body}.${property.name}${optional}: ${propertyType}` });
      }
    }
    messages.push({ kind, name, fields });
  }
  return messages;
}

/** The hash the page records for a file: of its messages' names, kinds and field signatures, in declaration order. */
function messagesHash(messages: Message[]): string {
  const text = messages.map(m => [`${m.kind} ${m.name}`, ...m.fields.map(f => `  ${f.signature}`)].join('\n')).join('\n');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The page's paragraph of each message: from its `**Request `name`**` line to the next message or heading. */
function documentedMessages(page: string): Map<string, { kind: string; text: string }> {
  const sections = new Map<string, { kind: string; text: string }>();
  const lines = page.split('\n');
  let current: { kind: string; text: string } | undefined;
  for (const line of lines) {
    const start = /^\*\*(Request|Notification|Event) `([^`]+)`\*\*/.exec(line);
    if (start) {
      assert.ok(!sections.has(start[2]), `${PAGE}: \`${start[2]}\` has two paragraphs`);
      current = { kind: start[1], text: '' };
      sections.set(start[2], current);
    } else if (/^#/.test(line) || /^A \*\*\w+\*\* is /.test(line)) {
      current = undefined;
    }
    if (current) current.text += `${line}\n`;
  }
  return sections;
}

describe(`the custom protocol messages in ${PAGE}`, () => {
  const program = ts.createProgram(
    FILES.map(f => join(ROOT, f)),
    { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, moduleResolution: ts.ModuleResolutionKind.Node10 },
  );
  const page = readFileSync(join(ROOT, PAGE), 'utf8');
  const documented = documentedMessages(page);
  const declared = new Map(FILES.map(f => [f, declaredMessages(program, f)]));

  test('each file declares messages (the reader of declarations still reads them)', () => {
    for (const [file, messages] of declared) assert.ok(messages.length >= 2, `${file}: found ${messages.length} messages`);
  });

  for (const file of FILES) {
    test(`every message of ${file} has its paragraph, naming each of its fields`, () => {
      const problems: string[] = [];
      for (const m of declared.get(file)!) {
        const section = documented.get(m.name);
        if (!section) {
          problems.push(`no paragraph starting **${m.kind} \`${m.name}\`**`);
          continue;
        }
        if (section.kind !== m.kind) problems.push(`\`${m.name}\` is a ${m.kind}, the page says ${section.kind}`);
        for (const f of m.fields) {
          if (f.name === 'threadId' && /threadId/.test(section.text)) continue;
          if (!new RegExp(`\\b${f.name}\\b`).test(section.text)) problems.push(`\`${m.name}\` does not name its field ${f.signature}`);
        }
      }
      assert.deepEqual(problems, [], `${PAGE} against ${file}:\n${problems.join('\n')}`);
    });

    test(`${PAGE} records the hash of ${file}'s messages`, () => {
      const hash = messagesHash(declared.get(file)!);
      const recorded = new RegExp(`<!-- ${file.replace(/[./]/g, '\\$&')} messages: ([0-9a-f]+) -->`).exec(page)?.[1];
      assert.equal(
        recorded,
        hash,
        `${file}'s messages changed since ${PAGE} was last checked against them: update the page's paragraphs, then the ` +
          `line <!-- ${file} messages: ${hash} --> in it`,
      );
    });
  }

  test('the page lists no message that is not declared', () => {
    const names = new Set([...declared.values()].flat().map(m => m.name));
    const extra = [...documented.keys()].filter(n => !names.has(n));
    assert.deepEqual(extra, [], `${PAGE} documents messages neither protocol file declares`);
  });
});
