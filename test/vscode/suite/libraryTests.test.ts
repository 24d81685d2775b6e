// Programs as tests in the Test Explorer: the demonstrations of a library are listed under their file, a program
// whose tools still give the recorded outputs passes, one whose recording is wrong fails with the step, the
// recorded and the new output.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { artStudio, until, workspaceUri, writeWorkspaceFile } from './helpers';

const FILE = 'library-tests.art';
const LIBRARY = `Description: (Sums) Add the numbers with Python.
Input: 2 and 3
Q1: [execute] run the code
print(2 + 3)
#1: 5
Q2: [EOQ]
Ans: 5
----
Description: (Products) Multiply the numbers with Python.
Input: 6 and 7
Q1: [execute] run the code
print(6 * 7)
#1: 41
Q2: [EOQ]
Ans: 41
`;

describe('programs as tests (Test Explorer)', function () {
  this.timeout(60_000);

  before(async () => {
    await writeWorkspaceFile(FILE, LIBRARY);
  });
  after(async () => {
    await vscode.workspace.fs.delete(workspaceUri(FILE));
  });

  it('lists the programs of the library, runs them, and shows the failing step with both outputs', async () => {
    const { tests } = await artStudio();
    await tests.discover();
    const file = await until(() => tests.controller.items.get(workspaceUri(FILE).toString()), 'the library in the Test Explorer');
    const programs: vscode.TestItem[] = [];
    file.children.forEach(i => programs.push(i));
    assert.deepEqual(
      programs.map(p => [p.label, p.range?.start.line]),
      [
        ['0: Sums', 0],
        ['1: Products', 8],
      ],
    );
    await tests.run([file]);
    const [sums, products] = programs.map(p => tests.outcomes.get(p.id));
    assert.equal(sums?.passed, true, JSON.stringify(sums));
    assert.equal(products?.passed, false);
    assert.match(products!.messages[0], /#1 \[execute\] differs from the recording\nrecorded: 41\ngot: 42/);
  });
});
