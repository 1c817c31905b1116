"""Run a command that executes model-edited code inside a bubblewrap (`bwrap`) sandbox.

The sandbox gives the command: no network (a fresh network namespace, loopback included),
a read-only system, a read-only view of the workspace, a throwaway copy of it on a sized
tmpfs as the one writable place (nothing written there survives the run), a private sized
/tmp, the home directories hidden, its own PID namespace and session (the whole tree dies
with it), and resource limits (address space, CPU time, processes, file size). When the harness runs as
root, the command also drops to the `nobody` user, because the kernel exempts root from the
process limit and root could read files like /etc/shadow.

What this file deliberately is not: a container runtime, or a silent fallback. When bwrap is
missing or unusable, `detect()` says so and the caller reports `"sandbox": "none"`.
"""
import functools
import os
import resource
import shutil
import site
import subprocess
import sys
import tempfile

NOBODY = 65534
MEMORY_BYTES = 2 * 1024**3   # address space: a 4 GiB allocation must fail
FILE_BYTES = 64 * 1024**2    # no single file written may exceed this
DISK_BYTES = 128 * 1024**2   # the throwaway copy, and /tmp, each: all the disk a run gets
SOURCE = "/tmp/.coding-loop-source"  # where the read-only workspace appears inside
EXTRA_PROCESSES = 256        # how many more tasks the sandboxed user may start


@functools.cache
def detect():
    """Return (name, warning): ("bubblewrap", None) when the sandbox works here, else ("none", why)."""
    if shutil.which("bwrap") is None:
        return "none", "bubblewrap is not installed (Debian: apt-get install bubblewrap); tests run unsandboxed"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "none", "setpriv (util-linux) is missing, so tests cannot drop root; tests run unsandboxed"
    # Probe with the very command line a real run uses, so "works" means what it says.
    with tempfile.TemporaryDirectory() as folder:
        try:
            failed = subprocess.run(wrap(["true"], folder), capture_output=True, timeout=10).returncode != 0
        except (OSError, subprocess.TimeoutExpired):
            failed = True
    if failed:
        return "none", "bubblewrap is installed but cannot create namespaces here; tests run unsandboxed"
    return "bubblewrap", None


def wrap(command, workspace, places=(), inside=None):
    """Return argv that runs `command` inside the sandbox, in a throwaway copy of `workspace`.

    The workspace is mounted read-only at SOURCE and a sized tmpfs takes its place at the same
    path (or at `inside`: fix.py puts the copy where the user's repository is, hiding it);
    `command` starts there and must copy SOURCE in itself (see pytest_run.py), so tested code
    can change nothing outside that copy and fill no more than DISK_BYTES. `places`: more
    folders mounted read-only (a project's own interpreter)."""
    workspace = os.path.realpath(workspace)
    inside = inside or workspace
    hidden = ["/tmp", *_homes(), *[p for p in ("/run",) if os.path.isdir(p)]]
    argv = [shutil.which("bwrap"), *_namespaces(), "--die-with-parent",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *_scratch("/tmp")]
    # Hide every home (the user's files, keys and tokens live there) and /run (the sockets
    # of the host's daemons, such as Docker's, live there: a network namespace does not
    # cover Unix sockets on the file system).
    for place in hidden[1:]:
        argv += ["--tmpfs", place]
    # The interpreter and its environment may live in a hidden place (pyenv in home,
    # CI's venv in the temp dir): mount them back, read-only, at the same paths.
    made = set()
    # A place inside the copy's folder (a project's .venv) is mounted after the copy's tmpfs,
    # which would hide it; every other place before, so none can hide the copy.
    later = [p for p in places if p.startswith(inside + "/")]
    for place in [*_python_places(), *[p for p in places if p not in later]]:
        argv += [*_parents(place, hidden, made), "--ro-bind", place, place]
    argv += ["--ro-bind", workspace, SOURCE, *_parents(inside, hidden, made), *_scratch(inside)]
    for place in later:
        argv += ["--ro-bind", place, place]
    argv += ["--chdir", inside]
    if os.geteuid() == 0:
        argv += [shutil.which("setpriv"), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return argv + list(command)


def _scratch(place):
    """A writable tmpfs at `place`, open to the (possibly dropped) user, at most DISK_BYTES."""
    return ["--perms", "1777", "--size", str(DISK_BYTES), "--tmpfs", place]


def resource_limits(cpu_seconds):
    """The (limit, value) pairs for a run, computed in the parent (preexec code stays tiny)."""
    uid = NOBODY if os.geteuid() == 0 else os.getuid()
    return [(resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, cpu_seconds),
            (resource.RLIMIT_NPROC, _tasks_of(uid) + EXTRA_PROCESSES),
            (resource.RLIMIT_FSIZE, FILE_BYTES), (resource.RLIMIT_CORE, 0)]


def apply_limits(limits):
    """Lower this process's soft limits; run as `preexec_fn`, so the whole tree inherits them."""
    for limit, value in limits:
        _, hard = resource.getrlimit(limit)
        resource.setrlimit(limit, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def _namespaces():
    # Not --unshare-all: as root it would add a user namespace in which setpriv cannot
    # switch to nobody. Unprivileged, bwrap adds the user namespace itself.
    return ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--new-session"]


def _parents(place, hidden, made):
    """Open folders (0755) leading to `place` inside a hidden tree. bwrap would copy the
    real folders' modes, and a 0700 temp folder would lock the dropped user out."""
    args = []
    for root in hidden:
        if place.startswith(root + "/"):
            parts = place[len(root) + 1:].split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                folder = os.path.join(root, *parts[:depth])
                if folder not in made:
                    made.add(folder)
                    args += ["--perms", "0755", "--dir", folder]
    return args


def _homes():
    places = {os.path.expanduser("~"), "/root", "/home"}
    return sorted(p for p in places if os.path.isdir(p) and p != "/")


def _python_places():
    places = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    user_site = site.getusersitepackages()  # a `pip install --user` pytest lives in home
    if os.path.isdir(user_site):
        places.add(user_site)
    return sorted(os.path.realpath(p) for p in places)


def _tasks_of(uid):
    """Count the tasks `uid` already runs: RLIMIT_NPROC counts all of them, not just ours."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue  # the process ended while we looked
    return count
