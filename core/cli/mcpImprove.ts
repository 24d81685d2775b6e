// The MCP tool `improve`: `art improve` for MCP clients (core/improve/improve.ts): the library improved by
// demonstrations bootstrapped from the training split, chosen on dev, proven on test; a progress notification per
// finished example when the request has a progress token; a cancelled request stops it, and the same call resumes.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defaultImprovedPath, improve, ImproveError, ImproveStopped, PlanError } from '../improve/improve';
import { formatImprove, improveJson } from './improve';
import { NOT_FOR_EVAL } from './eval';
import { CliError } from './files';
import { mayCallEndpoint } from '../launch/apiKey';
import {
  userToolsRefusedOf,
  confinedRunOptions,
  guarded,
  keysOf,
  mcpKey,
  mcpLabel,
  existingFile,
  filePath,
  pathIn,
  runOptionShape,
  toolResult,
  toolsSentence,
  type McpContext,
} from './mcpCommon';

const side = z.object({ n: z.number(), correct: z.number(), accuracy: z.number() });

export function registerImprove(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'improve',
    {
      title: 'Improve a task library with demonstrations bootstrapped from a dataset',
      description:
        'As `art improve` does: runs the library on the training split at a temperature above 0, keeps the right runs as candidate demonstrations, chooses a set of them on the dev split by a seeded random search within a budget of model requests, and compares the original with the improved library on the test split (McNemar); writes the proposed library as a new file (never over the original). Stops when the request is cancelled; the same call resumes, reusing what ran.' +
        toolsSentence(ctx),
      inputSchema: {
        library: filePath('The task library (.art) to improve'),
        train: filePath('The training split (JSONL): its right runs become candidate demonstrations'),
        dev: filePath('The dev split (JSONL): candidate sets are scored on it'),
        test: filePath('The test split (JSONL): the original and the improved library are compared on it'),
        out: z
          .string()
          .optional()
          .describe('The proposed library (default LIBRARY.improved.art beside the library): a new file or an earlier proposal, never another file.'),
        budget: z.int().min(1).optional().describe('The most model requests everything may send (default 1000).'),
        concurrency: z.int().min(1).max(64).optional().describe('Examples run at once, and the bound on requests in flight (default 4).'),
        ...runOptionShape(NOT_FOR_EVAL),
        seed: z
          .int()
          .min(0)
          .optional()
          .describe("Seeds the choice of candidate sets, and a local model's sampling (each bootstrap round its own) (default 0)."),
      },
      outputSchema: {
        baseline: side,
        improved: side,
        pValue: z.number(),
        significant: z.boolean(),
        difference: z.number(),
        differenceInterval: z.array(z.number()),
        added: z.array(z.object({ id: z.string(), line: z.number() })),
        removed: z.array(z.string()),
        fixed: z.array(z.string()),
        broken: z.array(z.string()),
        candidates: z.number(),
        sets: z.number(),
        dev: z.object({ n: z.number(), baseline: z.number(), best: z.number() }),
        requests: z.number(),
        requestsSent: z.number(),
        budget: z.number(),
        out: z.string(),
        results: z.object({ baseline: z.string(), improved: z.string() }),
      },
    },
    async (args, extra) =>
      guarded('improve', ctx, true, async () => {
        const library = await existingFile(ctx, args.library, '"library"');
        const [train, dev, test] = [
          await existingFile(ctx, args.train, '"train"'),
          await existingFile(ctx, args.dev, '"dev"'),
          await existingFile(ctx, args.test, '"test"'),
        ];
        const out = await pathIn(ctx, args.out ?? defaultImprovedPath(library), '"out"');
        const options = await confinedRunOptions(ctx, args);
        if (!library.toLowerCase().endsWith('.art')) throw new CliError(`${args.library}: give a task library (.art) as "library"`);
        const token = extra._meta?.progressToken;
        let done = 0;
        const progress = (message: string) => {
          if (token === undefined) return;
          void extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, message } })
            .catch(() => {});
        };
        try {
          const end = await improve({
            library,
            train,
            dev,
            test,
            out,
            options,
            optionLabel: mcpLabel('library'),
            apiKey: o => {
              const { key, note } = mcpKey(ctx, o, mayCallEndpoint(o));
              if (note) progress(note);
              return key;
            },
            trusted: true,
            userToolsRefused: userToolsRefusedOf(ctx),
            concurrency: args.concurrency ?? 4,
            budget: args.budget ?? 1000,
            seed: args.seed ?? 0,
            signal: extra.signal,
            log: line => progress(line),
            onEvaluation: e => progress(`${e.label}: ${e.total} example(s), ${e.done} already run`),
            onResult: (phase, r) => {
              done++;
              progress(`${phase} ${r.id}: ${r.exact ? 'ok' : 'wrong'}`);
            },
          });
          const json = improveJson(end);
          return toolResult(formatImprove(end), json, keysOf(ctx));
        } catch (e) {
          if (e instanceof ImproveStopped) throw new CliError(`improve: ${e.message}`);
          if (e instanceof PlanError || e instanceof ImproveError) throw new CliError(`improve: ${e.message}`);
          throw e;
        }
      }),
  );
}
