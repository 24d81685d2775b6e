// The sandbox's system call filter (a classic BPF program for seccomp). It refuses, with EPERM:
//
// - the calls that make memory no resource limit counts. RLIMIT_AS counts only what is mapped, so a memfd file
//   (memfd_create, then write) or a System V segment (shmget, attach, fill, detach) holds host memory past the
//   step's memory limit; the sandbox's tmpfs mounts are the only shared memory a step gets, and their size is
//   bounded. memfd_secret is refused with them.
// - the kernel attack surface a step has no use for: new namespaces (unshare, and clone with any CLONE_NEW* flag:
//   a user namespace would give the code uid 0 with every capability over new net and mount namespaces), entering
//   one (setns), io_uring (io_uring_setup, _enter, _register), packet sockets (AF_PACKET) and netfilter sockets
//   (AF_NETLINK with NETLINK_NETFILTER). clone3, whose flags sit in memory a filter cannot read, answers ENOSYS:
//   the C library then falls back to clone, whose flags the filter reads.
//
// Every other call is allowed; so is everything on an architecture the table does not know (then nothing is
// filtered, and sandbox.ts says so). The Python wrapper installs the filter before any user code (prctl:
// no_new_privs, then SECCOMP_MODE_FILTER) at every isolation level; a filter cannot be removed, and it holds for
// every process the code starts.

/** The numbers of the calls the filter looks at, by architecture (with the kernel's AUDIT_ARCH value). */
const ARCHES: Record<string, { audit: number; calls: Record<Call, number>; x32?: boolean }> = {
  x64: {
    audit: 0xc000003e,
    calls: {
      memfd_create: 319,
      memfd_secret: 447,
      shmget: 29,
      unshare: 272,
      setns: 308,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      clone: 56,
      clone3: 435,
      socket: 41,
    },
    x32: true,
  },
  arm64: {
    audit: 0xc00000b7,
    calls: {
      memfd_create: 279,
      memfd_secret: 447,
      shmget: 194,
      unshare: 97,
      setns: 268,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      clone: 220,
      clone3: 435,
      socket: 198,
    },
  },
};

type Call = (typeof REFUSED_CALLS)[number] | 'clone' | 'clone3' | 'socket';

/** The calls the filter refuses whatever their arguments (for messages and the README). */
export const REFUSED_CALLS = [
  'memfd_create',
  'memfd_secret',
  'shmget',
  'unshare',
  'setns',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
] as const;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (CLONE_NEWTIME only exists for clone3). */
const CLONE_NEW_ANY = 0x7e020000;
const AF_NETLINK = 16;
const AF_PACKET = 17;
const NETLINK_NETFILTER = 12;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const X32_BIT = 0x40000000;
/** Offsets in struct seccomp_data: the call's number, its architecture, and the low 32 bits of argument i. */
const NR = 0;
const ARCH = 4;
const arg = (i: number) => 16 + 8 * i; // little-endian: the low half comes first

type Label = 'deny' | 'enosys' | 'clone' | 'socket' | 'netlink';
type Insn = { code: number; k: number; jt?: Label; jf?: Label; label?: Label };

/**
 * The filter for `arch` (Node's process.arch, the interpreter's too) as the bytes of a `struct sock_filter` array,
 * or null where the architecture is not known. A call made through another architecture's entry point (i386 or x32
 * on x86-64) is refused whole, so no second set of numbers can reach the refused calls.
 */
export function sandboxFilter(arch: string = process.arch): Buffer | null {
  const a = ARCHES[arch];
  if (!a) return null;
  const allow: Insn = { code: RET_K, k: RET_ALLOW };
  const program: Insn[] = [
    { code: LD_W_ABS, k: ARCH },
    { code: JEQ_K, k: a.audit, jf: 'deny' },
    { code: LD_W_ABS, k: NR },
    ...(a.x32 ? [{ code: JSET_K, k: X32_BIT, jt: 'deny' as const }] : []),
    ...REFUSED_CALLS.map(call => ({ code: JEQ_K, k: a.calls[call], jt: 'deny' as const })),
    { code: JEQ_K, k: a.calls.clone3, jt: 'enosys' },
    { code: JEQ_K, k: a.calls.clone, jt: 'clone' },
    { code: JEQ_K, k: a.calls.socket, jt: 'socket' },
    allow,
    { label: 'clone', code: LD_W_ABS, k: arg(0) }, // the flags
    { code: JSET_K, k: CLONE_NEW_ANY, jt: 'deny' },
    allow,
    { label: 'socket', code: LD_W_ABS, k: arg(0) }, // the domain
    { code: JEQ_K, k: AF_PACKET, jt: 'deny' },
    { code: JEQ_K, k: AF_NETLINK, jt: 'netlink' },
    allow,
    { label: 'netlink', code: LD_W_ABS, k: arg(2) }, // the protocol
    { code: JEQ_K, k: NETLINK_NETFILTER, jt: 'deny' },
    allow,
    { label: 'deny', code: RET_K, k: RET_ERRNO | EPERM },
    { label: 'enosys', code: RET_K, k: RET_ERRNO | ENOSYS },
  ];
  const at = new Map(program.flatMap((insn, i) => (insn.label ? [[insn.label, i] as const] : [])));
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    // Jumps go forward only: the offset counts the instructions skipped after this one.
    const offset = (label: Label | undefined) => (label ? at.get(label)! - i - 1 : 0);
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(offset(insn.jt), i * 8 + 2);
    out.writeUInt8(offset(insn.jf), i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}
