// The sandbox's system call filter (a classic BPF program for seccomp): it refuses, with EPERM, the calls that make
// memory no resource limit counts. RLIMIT_AS counts only what is mapped, so a memfd file (memfd_create, then write)
// or a System V segment (shmget, attach, fill, detach) holds host memory past the step's memory limit; the
// sandbox's tmpfs mounts are the only shared memory a step gets, and their size is bounded. memfd_secret is
// refused with them. Every other call is allowed; so is everything on an architecture the table does not know
// (then nothing is filtered, and sandbox.ts says so). The Python wrapper installs the filter before any user code
// (prctl: no_new_privs, then SECCOMP_MODE_FILTER); a filter cannot be removed, and it holds for every process the
// code starts.

/** The calls refused, by architecture (the kernel's AUDIT_ARCH value and the calls' numbers). */
const ARCHES: Record<string, { audit: number; calls: Record<string, number>; x32?: boolean }> = {
  x64: { audit: 0xc000003e, calls: { memfd_create: 319, memfd_secret: 447, shmget: 29 }, x32: true },
  arm64: { audit: 0xc00000b7, calls: { memfd_create: 279, memfd_secret: 447, shmget: 194 } },
};

/** The calls the filter refuses (for messages and the README). */
export const REFUSED_CALLS = ['memfd_create', 'memfd_secret', 'shmget'];

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const X32_BIT = 0x40000000;

/**
 * The filter for `arch` (Node's process.arch, the interpreter's too) as the bytes of a `struct sock_filter` array,
 * or null where the architecture is not known. A call made through another architecture's entry point (i386 or x32
 * on x86-64) is refused whole, so no second set of numbers can reach the refused calls.
 */
export function shmFilter(arch: string = process.arch): Buffer | null {
  const a = ARCHES[arch];
  if (!a) return null;
  type Insn = { code: number; k: number; jt?: 'deny'; jf?: 'deny' };
  const body: Insn[] = [
    { code: LD_W_ABS, k: 4 }, // seccomp_data.arch
    { code: JEQ_K, k: a.audit, jf: 'deny' },
    { code: LD_W_ABS, k: 0 }, // seccomp_data.nr
    ...(a.x32 ? [{ code: JSET_K, k: X32_BIT, jt: 'deny' as const }] : []),
    ...Object.values(a.calls).map(nr => ({ code: JEQ_K, k: nr, jt: 'deny' as const })),
    { code: RET_K, k: RET_ALLOW },
  ];
  const deny = body.length; // the instruction after the body
  const program = [...body, { code: RET_K, k: RET_EPERM }];
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    const offset = (label: 'deny' | undefined) => (label ? deny - i - 1 : 0);
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(offset(insn.jt), i * 8 + 2);
    out.writeUInt8(offset(insn.jf), i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}
