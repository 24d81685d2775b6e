// The Python program the sandbox starts (`python -I -c WRAPPER`): the wrapper. It reads one JSON request from stdin,
// builds the file system at the unshare level (_art_enter_root), sets the resource limits (RLIMIT_NPROC only inside a
// user namespace, where it counts the sandbox's processes), installs the system call filter (seccomp.ts), guards the
// socket module and runs the optional prefix (ART's own, trusted). Then it forks: the user's code runs in the child,
// in a fresh namespace, and the child writes one report on a pipe of its own: {"kind": "result", "found": bool,
// "name": str, "value": str} | {"kind": "exception", "type", "message"} | {"kind": "finished"}. `value` is formatted
// as the ART reference shows results (see _art_format). Tracebacks name the code `<stdin>` and omit the wrapper's
// frames, the way the ART corpus shows them. The user's own stdout/stderr stay untouched.
//
// The wrapper alone reports to the host, on a channel the code never holds: the host opens it as fd 3, and the
// wrapper moves it to a private descriptor (closed on exec) and closes fd 3 before anything else; it reads a per-run
// nonce from fd 4 only in itself, after the fork, and puts it in its one frame (any other descriptor it inherited
// above 2 it closes: a pipe the host left open by mistake is no way out); the child closes both before the
// code runs, and the wrapper makes itself non-dumpable, so the code cannot open its descriptors or read its memory
// through /proc or ptrace. Its one frame, the last line on the channel: {"nonce", "kind": "done", "report": the
// child's report or null, "exitCode", "signal" (how the child ended), "problem": why the report is not believed, or
// null} | {"nonce", "kind": "isolation-error" | "seccomp-error" | "prefix-error", "message"} (before any code ran).
// The child's pipe must hold exactly one well-formed report: code that writes reports of its own there (the only
// place it can write one) gets a problem, not its forgery. What remains: the code's process can make its one report
// say anything, by ending itself after writing it, as it can by setting `ans` (docs/security.md).
// Without fork (Windows) the code runs in the wrapper's process and could reach the channel and the nonce.
export const PYTHON_WRAPPER = String.raw`
import json, os, sys, traceback

# The child's report on its pipe: at most this many bytes are kept (RESULT_LIMIT_BYTES in sandbox.ts).
REPORT_LIMIT = 1000000

def _art_main():
    request = json.loads(sys.stdin.read())
    # The channel to the host and the nonce's pipe, moved off fds 3 and 4 to descriptors no program started here
    # inherits; code that writes to fd 3 writes nowhere (or to a file of its own).
    channel = _art_private(3)
    nonce_pipe = _art_private(4)
    _art_close_inherited({channel, nonce_pipe})
    sys.stdin.close()
    sys.stdin = open(os.devnull)

    def send(obj):
        # The nonce is read here, in the wrapper only: before the code runs, or after the fork.
        obj["nonce"] = _art_read_all(nonce_pipe, 256).decode("ascii", "replace").strip()
        _art_write_all(channel, (json.dumps(obj) + "\n").encode())

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

    names = request.get("resultVars") or []
    if not hasattr(os, "fork"):
        report = _art_execute(request["code"], namespace, names)
        sys.stdout.flush()
        send({"kind": "done", "report": report, "exitCode": 1 if report["kind"] == "exception" else 0, "signal": None,
              "problem": None})
        os._exit(1 if report["kind"] == "exception" else 0)

    # Nothing of this process (its descriptors, its memory) is reachable from the code's: not through /proc, not
    # by ptrace (PR_SET_DUMPABLE 0; the child sets itself dumpable again, for its own /proc).
    _art_prctl(4, 0)
    sys.stdout.flush()
    sys.stderr.flush()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(reader)
            os.close(channel)
            os.close(nonce_pipe)
            _art_prctl(4, 1)
            _art_prctl(1, 9)  # PR_SET_PDEATHSIG: SIGKILL when the wrapper ends
            report = _art_execute(request["code"], namespace, names)
            _art_write_all(writer, (json.dumps(report) + "\n").encode())
            os._exit(1 if report["kind"] == "exception" else 0)
        finally:
            os._exit(70)
    os.close(writer)
    data, status = _art_collect(reader, pid)
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    signal_name = None
    if os.WIFSIGNALED(status):
        import signal
        try:
            signal_name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            signal_name = "SIG%d" % os.WTERMSIG(status)
    report, problem = _art_read_report(data, names)
    send({"kind": "done", "report": report, "exitCode": exit_code, "signal": signal_name, "problem": problem,
          "large": data is None})

def _art_private(fd):
    """Fd moved to a descriptor of its own that no program started here inherits; the original is closed. None
    when the host did not open it."""
    try:
        moved = os.dup(fd)
    except OSError:
        return None
    os.close(fd)
    return moved

def _art_close_inherited(keep):
    """Closes every descriptor above 2 but those kept: one the host left open by mistake (a pipe of its own) is out of
    the code's reach."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = range(3, 256)
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass

def _art_read_all(fd, limit):
    out = b""
    if fd is None:
        return out
    while len(out) < limit:
        chunk = os.read(fd, limit - len(out))
        if not chunk:
            break
        out += chunk
    return out

def _art_write_all(fd, data):
    if fd is None:
        return
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]

def _art_prctl(option, value):
    """prctl(option, value) where there is one (Linux); nothing elsewhere."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        libc.prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass

def _art_user_traceback(e):
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "<stdin>":
        tb = tb.tb_next
    report = traceback.TracebackException(type(e), e, tb)
    # Frames of this wrapper (compiled from -c, so named "<string>") are noise to the reader.
    report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != "<string>"])
    return "".join(report.format())

def _art_exception(e):
    message = "out of memory" if isinstance(e, MemoryError) else str(e)
    try:
        sys.stdout.flush()
        sys.stderr.write(_art_user_traceback(e))
        sys.stderr.flush()
    except BaseException:
        pass
    return {"kind": "exception", "type": type(e).__name__, "message": message}

def _art_execute(source, namespace, names):
    """Runs the user's code; its report: the first of the result variables defined, an exception, or finished."""
    try:
        code = compile(source, "<stdin>", "exec")
        exec(code, namespace)
    except SystemExit:
        pass
    except BaseException as e:
        return _art_exception(e)
    try:
        sys.stdout.flush()
        if not names:
            return {"kind": "finished"}
        found = next((n for n in names if n in namespace), None)
        if found is None:
            return {"kind": "result", "found": False}
        return {"kind": "result", "found": True, "name": found, "value": _art_format(namespace[found])}
    except BaseException as e:
        return _art_exception(e)

def _art_collect(reader, pid):
    """What the child writes on its pipe (at most REPORT_LIMIT bytes kept, the rest read and dropped) until it
    ends, and its wait status. A process the code started may hold the pipe open: once the child has ended,
    only what is there already is read."""
    import select
    os.set_blocking(reader, False)
    kept = []
    size = 0
    status = None
    open_ = True
    while True:
        if open_:
            ready = select.select([reader], [], [], 0.05)[0]
            while ready:
                try:
                    chunk = os.read(reader, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    open_ = False
                    break
                if size < REPORT_LIMIT:
                    kept.append(chunk)
                size += len(chunk)
        if status is not None:
            break
        done, st = os.waitpid(pid, 0 if not open_ else os.WNOHANG)
        if done:
            status = st
            if not open_:
                break
            # One more pass reads what the child wrote before it ended.
            continue
    data = b"".join(kept)
    return (data if size <= REPORT_LIMIT else None), status

def _art_read_report(data, names):
    """The child's one report, or null and why it is not believed."""
    if not data:
        return None, None
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    if len(lines) != 1:
        return None, "the code wrote reports of its own to the wrapper's pipe (%d lines where the wrapper writes one)" % len(lines)
    try:
        report = json.loads(lines[0])
    except ValueError:
        report = None
    if _art_well_formed(report, names):
        return report, None
    return None, "the code wrote to the wrapper's pipe (its one line is not the report the wrapper writes)"

def _art_well_formed(report, names):
    if not isinstance(report, dict):
        return False
    kind = report.get("kind")
    keys = set(report)
    if kind == "finished":
        return keys == {"kind"} and not names
    if kind == "exception":
        return keys == {"kind", "type", "message"} and isinstance(report["type"], str) and isinstance(report["message"], str)
    if kind == "result" and names:
        if report.get("found") is False:
            return keys == {"kind", "found"}
        return (keys == {"kind", "found", "name", "value"} and report.get("found") is True and report.get("name") in names
                and isinstance(report.get("value"), str))
    return False

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

    # No nested user namespace (bubblewrap's --disable-userns): the limit of the step's own user namespace, which
    # this process owns, is 0 (the seccomp filter refuses new namespaces too).
    userns_limit = "/proc/sys/user/max_user_namespaces"
    if os.path.exists(userns_limit):
        with open(userns_limit, "w") as f:
            f.write("0")
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
