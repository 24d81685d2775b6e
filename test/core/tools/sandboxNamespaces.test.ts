// Issue 29 item 7: inside the sandbox, unshare(CLONE_NEWUSER) gave uid 0 with every capability over new net and
// mount namespaces, netfilter and packet sockets could be opened from there, and io_uring_setup succeeded. Each
// attack is tried inside the sandbox at both isolated levels (bubblewrap and the unshare fallback), and once against
// the system call filter alone in a process that holds the capabilities the calls need (root of a user namespace
// of its own), so that a refusal is the filter's and not a missing capability's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { detectIsolation, runPython } from '../../../core/tools/sandbox';
import { sandboxFilter } from '../../../core/tools/seccomp';
import { requireDebianPackage } from '../../support/debian';
import { PYTHON } from './helpers';

/** Each attack and each ordinary call, tried once; prints one JSON object: name -> "ok" or the errno's name. */
const PROBE = String.raw`
import ctypes, errno, json, os, socket, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
machine = os.uname().machine
NR = {"x86_64": {"clone": 56, "io_uring_setup": 425}, "aarch64": {"clone": 220, "io_uring_setup": 425}}[machine]
out = {}
def attempt(name, f):
    try:
        r = f()
        out[name] = "ok" if r is None or r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))
def clone_newuser():
    pid = libc.syscall(NR["clone"], ctypes.c_ulong(0x10000000 | 17), None, None, None, None)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return pid
def setns_net():
    fd = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        return libc.setns(fd, 0)
    finally:
        os.close(fd)
def io_uring():
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(NR["io_uring_setup"], 4, params)
    if fd >= 0:
        os.close(fd)
    return fd
def sock(*args):
    socket.socket(*args).close()
attempt("clone newuser", clone_newuser)
attempt("setns", setns_net)
attempt("io_uring_setup", io_uring)
attempt("packet socket", lambda: sock(17, socket.SOCK_RAW, 0x0300))
attempt("netfilter socket", lambda: sock(16, socket.SOCK_RAW, 12))
# Last: where it succeeds, the process is in namespaces of its own from here on.
attempt("unshare mount", lambda: libc.unshare(0x20000))
attempt("unshare net", lambda: libc.unshare(0x40000000))
attempt("unshare user", lambda: libc.unshare(0x10000000))
def thread():
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()
attempt("thread", thread)
attempt("subprocess", lambda: subprocess.run(["/usr/bin/true"], check=True) and None)
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
attempt("fork", fork)
attempt("unix socket", lambda: sock(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("route netlink socket", lambda: sock(16, socket.SOCK_RAW, 0))
try:
    out["max_user_namespaces"] = open("/proc/sys/user/max_user_namespaces").read().strip()
except OSError as e:
    out["max_user_namespaces"] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(out))
`;

const ATTACKS = ['unshare user', 'unshare net', 'unshare mount', 'clone newuser', 'setns', 'io_uring_setup', 'packet socket', 'netfilter socket'];
const ORDINARY = ['thread', 'subprocess', 'fork', 'unix socket', 'route netlink socket'];

function check(what: string, results: Record<string, string>): void {
  for (const a of ATTACKS) assert.equal(results[a], 'EPERM', `${what}: ${a} was not refused (${results[a]})`);
  for (const o of ORDINARY) assert.equal(results[o], 'ok', `${what}: ${o} no longer works (${results[o]})`);
}

describe('the sandbox makes no namespace and opens no io_uring, packet or netfilter socket', () => {
  test('inside the sandbox, at the bubblewrap and the unshare levels', async t => {
    requireDebianPackage('bubblewrap');
    assert.equal(await detectIsolation(), 'bwrap');
    for (const level of ['bwrap', 'unshare'] as const) {
      const r = await runPython({ code: PROBE, pythonPath: PYTHON, limits: { timeoutMs: 20_000 }, isolation: level });
      assert.equal(r.status, 'ok', `${level}: ${r.message ?? ''}${r.stderr}`);
      const results = JSON.parse(r.stdout) as Record<string, string>;
      t.diagnostic(`${level}: ${JSON.stringify(results)}`);
      check(level, results);
      // The unshare fallback's own --disable-userns: its user namespace allows no nested one, filter or not.
      if (level === 'unshare') assert.equal(results.max_user_namespaces, '0');
    }
  });

  test('the system call filter alone refuses them to a process that holds the capabilities they need', t => {
    const filter = sandboxFilter();
    assert.ok(filter, `no filter for ${process.arch}`);
    // Root of a user and network namespace of its own: without the filter, every attack succeeds here.
    const install =
      'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]\n' +
      `prog = bytes.fromhex(${JSON.stringify(filter.toString('hex'))})\nbuf = ctypes.create_string_buffer(prog, len(prog))\n` +
      'class F(ctypes.Structure):\n    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]\n' +
      'f = F(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))\n' +
      'assert libc.prctl(38, 1, 0, 0, 0) == 0 and libc.prctl(22, 2, ctypes.addressof(f), 0, 0) == 0\n';
    for (const filtered of [false, true]) {
      const r = spawnSync('unshare', ['-rn', '--', PYTHON, '-c', (filtered ? install : '') + PROBE], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, r.stderr);
      const results = JSON.parse(r.stdout) as Record<string, string>;
      t.diagnostic(`${filtered ? 'filtered' : 'unfiltered'}: ${JSON.stringify(results)}`);
      if (filtered) check('the filter', results);
      // The control: the same process without the filter is allowed every call, so the refusals above are the filter's.
      else for (const a of ATTACKS) assert.equal(results[a], 'ok', `unfiltered: ${a} (${results[a]})`);
    }
  });
});
