// The Python program the sandbox starts (`python -I -c WRAPPER`). It reads one JSON request from stdin, builds the
// file system at the unshare level (_art_enter_root), sets the resource limits (RLIMIT_NPROC only inside a user
// namespace, where it counts the sandbox's processes), installs the system call filter (seccomp.ts), guards the
// socket module, runs the optional prefix and then the user's code in a fresh
// namespace, and reports on file descriptor 3 (one JSON object per line) so the user's own stdout/stderr stay
// untouched: {"kind": "result", "found": bool, "name": str, "value": str} | {"kind": "exception", "type", "message"} |
// {"kind": "prefix-error", "message"} | {"kind": "seccomp-error", "message"} |
// {"kind": "isolation-error", "message"}. `value` is formatted as the ART reference shows results (see _art_format). Tracebacks name the code `<stdin>` and omit the wrapper's frames, the way
// the ART corpus shows them.
export const PYTHON_WRAPPER = String.raw`
import json, os, sys, traceback

def _art_main():
    request = json.loads(sys.stdin.read())
    sys.stdin.close()
    sys.stdin = open(os.devnull)
    channel = os.fdopen(3, "w")

    def send(obj):
        channel.write(json.dumps(obj) + "\n")
        channel.flush()

    root = request.get("root")
    if root:
        # The unshare level: build the file system bubblewrap would give, enter it and drop every capability.
        try:
            _art_enter_root(root)
        except Exception as e:
            send({"kind": "isolation-error", "message": str(e)})
            sys.exit(4)

    try:
        import resource
        limits = request["limits"]
        for name, value in (("RLIMIT_AS", limits["memoryBytes"]), ("RLIMIT_CPU", limits["cpuSeconds"]),
                            ("RLIMIT_FSIZE", limits["fileBytes"]), ("RLIMIT_CORE", 0), ("RLIMIT_NOFILE", 256),
                            ("RLIMIT_NPROC", limits.get("processes"))):
            kind = getattr(resource, name, None)
            if kind is not None and value is not None:
                try:
                    resource.setrlimit(kind, (value, value))
                except (ValueError, OSError):
                    pass
    except ImportError:
        pass  # no resource module (Windows): only the wall-clock timeout applies

    seccomp = request.get("seccomp")
    if seccomp:
        # The system call filter (seccomp.ts): no memfd files or System V segments, whose memory RLIMIT_AS does not
        # count. Installed before any user code; a filter cannot be removed. Not installed: the step does not run.
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
            program = ctypes.create_string_buffer(bytes.fromhex(seccomp), len(seccomp) // 2)

            class SockFprog(ctypes.Structure):
                _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

            fprog = SockFprog(len(seccomp) // 16, ctypes.cast(program, ctypes.c_void_p))
            # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER.
            if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        except Exception as e:
            send({"kind": "seccomp-error", "message": str(e)})
            sys.exit(4)

    if request.get("guardSockets"):
        import socket
        denied = "network access is disabled in the ART sandbox"
        base = socket.socket
        inet = {socket.AF_INET, getattr(socket, "AF_INET6", socket.AF_INET)}

        class GuardedSocket(base):
            def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
                fam = socket.AF_INET if family == -1 else family
                if fileno is None and fam in inet:
                    raise PermissionError(denied)
                super().__init__(family, type, proto, fileno)

        def refuse(*args, **kwargs):
            raise PermissionError(denied)

        socket.socket = GuardedSocket
        socket.SocketType = GuardedSocket
        socket.create_connection = refuse
        socket.create_server = refuse
        socket.getaddrinfo = refuse
        socket.gethostbyname = refuse
        socket.gethostbyname_ex = refuse

    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    prefix = request.get("prefix")
    if prefix:
        try:
            exec(compile(prefix, "<art-prefix>", "exec"), namespace)
        except ImportError as e:
            send({"kind": "prefix-error", "message": str(e)})
            sys.exit(3)

    def user_traceback(e):
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != "<stdin>":
            tb = tb.tb_next
        report = traceback.TracebackException(type(e), e, tb)
        # Frames of this wrapper (compiled from -c, so named "<string>") are noise to the reader.
        report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != "<string>"])
        return "".join(report.format())

    try:
        code = compile(request["code"], "<stdin>", "exec")
        exec(code, namespace)
    except SystemExit:
        pass
    except BaseException as e:
        message = "out of memory" if isinstance(e, MemoryError) else str(e)
        try:
            sys.stdout.flush()
            sys.stderr.write(user_traceback(e))
            sys.stderr.flush()
        except BaseException:
            pass
        send({"kind": "exception", "type": type(e).__name__, "message": message})
        os._exit(1)

    sys.stdout.flush()
    names = request.get("resultVars") or []
    if names:
        found = next((n for n in names if n in namespace), None)
        if found is None:
            send({"kind": "result", "found": False})
        else:
            send({"kind": "result", "found": True, "name": found, "value": _art_format(namespace[found])})

def _art_enter_root(root):
    """In fresh user (as its root), mount, PID and IPC namespaces (unshare): a read-only tmpfs root holding only the
    layout sandbox.ts lists (/usr and the loader's files, read-only), device nodes, a bounded /tmp (the scratch
    folder) and /dev/shm, /proc when the PID namespace is ours; the host's root is moved under it and chroot()
    leaves it out of reach. Then every capability is dropped for good (bounding set, securebits, capset), so the
    code can neither mount nor chroot nor regain root's powers by exec."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = (
        1, 2, 4, 8, 32, 4096, 8192, 16384, 1 << 18)

    def check(result, what):
        if result != 0:
            err = ctypes.get_errno()
            raise OSError(err, "%s: %s" % (what, os.strerror(err)))

    def mount(source, target, fstype, flags, data=None):
        enc = lambda v: v.encode() if v is not None else None
        check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), "mount " + target)

    new = root["dir"]
    size = root["tmpfsBytes"]
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for d in ("tmp", "dev", "dev/shm", "proc"):
        os.mkdir(os.path.join(new, d))
    mount("tmpfs", new + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % size)
    mount("tmpfs", new + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % size)
    for name in ("null", "zero", "full", "random", "urandom", "tty"):
        open(new + "/dev/" + name, "a").close()
        mount("/dev/" + name, new + "/dev/" + name, None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, new + "/dev/" + name)
    if root["proc"]:
        mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)

    def ro_bind(src, dest):
        target = new + dest
        if os.path.isdir(src):
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, "a").close()
        mount(src, target, None, MS_BIND | MS_REC)
        # A remount in a user namespace must keep the flags the host's mount locked (nosuid, nodev, atime, ...).
        flags = os.statvfs(target).f_flag
        kept = 0
        for st, ms in ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, 1024), (2048, 2048), (4096, 1 << 21)):
            if flags & st:
                kept |= ms
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)

    for kind, src, dest in root["layout"]:
        if kind == "symlink":
            os.symlink(src, new + dest)
        elif kind == "ro-bind" or os.path.exists(src):
            ro_bind(src, dest)
    os.mkdir(new + root["scratch"])
    mount(None, new, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(new)
    mount(new, "/", None, MS_MOVE)
    check(libc.chroot(b"."), "chroot")
    os.chdir(root["scratch"])

    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    cap = 0
    while libc.prctl(24, cap, 0, 0, 0) == 0:  # PR_CAPBSET_DROP, up to the kernel's last capability (EINVAL)
        cap += 1
    check(libc.prctl(47, 4, 0, 0, 0), "clear ambient capabilities")  # PR_CAP_AMBIENT_CLEAR_ALL
    # PR_SET_SECUREBITS: noroot, no_setuid_fixup, keep_caps and no_cap_ambient_raise, each locked.
    check(libc.prctl(28, 0xEF, 0, 0, 0), "securebits")

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    check(libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)()), "capset")

def _art_number(x):
    """A numpy or sympy number as a Python int or float (sympy's 15 digits become the shortest repr); else None."""
    if type(x).__module__ == "numpy" and hasattr(x, "item") and getattr(x, "ndim", 1) == 0:
        v = x.item()
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    sympy = sys.modules.get("sympy")
    if sympy is not None and isinstance(x, sympy.Basic) and x.is_number:
        if x.is_Integer:
            return int(x)
        try:
            c = complex(x)
        except (TypeError, ValueError):
            return None
        return c.real if c.imag == 0 else None
    return None

def _art_format(value):
    """As the ART reference shows a result: Python's str() of it, a one-element list unwrapped, numpy arrays as
    lists, and a numpy or sympy number rounded to a Python number (a container keeps its items' own str())."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0:
        value = value.tolist()
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    number = _art_number(value)
    if number is not None:
        return str(number)
    return str(value)

_art_main()
`;
