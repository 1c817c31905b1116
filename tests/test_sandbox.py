"""run_tests in the bubblewrap sandbox, shown with real code run through it.

Each probe replaces the sample's tests with a test of ours and runs it through `run_tests`,
exactly as model-edited code would run. Where bubblewrap is unusable these tests skip, with
the reason, except in CI (CI=true), where a missing sandbox fails them.
"""
import os
import socket
import uuid
from pathlib import Path

import pytest

from repo_tools import RepoTools
from tests.processes import gone_soon, grandchild, watching, write_probe
from workspace import sandbox

AVAILABLE, WHY_NOT = sandbox.detect()
pytestmark = [pytest.mark.skipif(AVAILABLE != "bubblewrap" and not os.environ.get("CI"),
                                 reason=f"no usable sandbox here: {WHY_NOT}"),
              pytest.mark.real_pytest_runs]  # what the sandbox keeps out is seen only in a real run


def probe(workspace, body, **options):
    """Run `body` as a test inside run_tests; the probe's own asserts decide exit_code."""
    write_probe(workspace, body)
    result = RepoTools(workspace, sandbox_mode="require", **options).run_tests()
    assert result["sandbox"] == "bubblewrap"
    return result


def test_pytest_really_runs_inside_the_sandbox_on_a_throwaway_copy(workspace):
    result = probe(workspace, f"""
assert os.getpid() < 10, os.getpid()                        # a fresh PID namespace
assert [name for _, name in socket.if_nameindex()] == ["lo"]      # a fresh network namespace
assert b"bwrap" in open("/proc/1/cmdline", "rb").read()      # PID 1 is bubblewrap's init
assert os.getuid() == ({sandbox.NOBODY} if {os.geteuid()} == 0 else {os.getuid()})
assert os.getcwd() == {str(workspace)!r}                     # the same path as outside...
open("ran-inside", "w").write(sys.executable)                 # ...writable...
try:
    open("{sandbox.SOURCE}/escaped", "w")                     # ...but the real workspace is read-only
    raise AssertionError("wrote into the workspace itself")
except OSError:
    pass
""")
    assert result["exit_code"] == 0 and result["passed"] == 1, result["output"]
    assert not (workspace / "ran-inside").exists()  # the copy, and what was written in it, are gone


def test_no_network_not_even_loopback(workspace):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        result = probe(workspace, f"""
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    raise AssertionError("connected to the host's loopback listener")
except OSError as error:
    assert "connected" not in str(error)
""")
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever reached the listener
    assert result["exit_code"] == 0, result["output"]


def test_writes_outside_the_workspace_leave_nothing_behind(workspace):
    name = f"coding-loop-escape-{uuid.uuid4().hex}"
    home = Path.home()
    result = probe(workspace, f"""
for place in ["/tmp/{name}", "{home}/{name}"]:
    try:
        open(place, "w").write("escaped")
    except OSError:
        pass  # refused outright is fine too
for place in ["/{name}", "/usr/{name}", sys.prefix + "/{name}"]:
    try:
        open(place, "w").write("escaped")
        raise AssertionError("wrote to read-only " + place)
    except OSError:
        pass
""")
    assert result["exit_code"] == 0, result["output"]
    for place in (Path("/tmp") / name, home / name, Path("/") / name, Path("/usr") / name):
        assert not place.exists(), place


def test_files_in_home_cannot_be_read(workspace):
    secret = Path.home() / f".coding-loop-secret-{uuid.uuid4().hex}"
    secret.write_text("hunter2")
    try:
        result = probe(workspace, f"""
try:
    leaked = open("{secret}").read()
except OSError:
    leaked = None
assert leaked is None, "read a file in the user's home"
assert os.listdir("{Path.home()}") in ([], [p for p in os.listdir("{Path.home()}") if not p.startswith(".coding")])
""")
    finally:
        secret.unlink()
    assert result["exit_code"] == 0, result["output"]


# The limit is the sandboxed user's tasks when the run starts plus EXTRA_PROCESSES; other sandboxed
# runs of the same user (the suite's other workers) that end meanwhile leave room for a few more.
SLACK = 32


def test_a_fork_loop_is_contained(workspace):
    result = probe(workspace, f"""
children = 0
try:
    while children < 5000:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError:
    pass  # the process limit said no
assert 0 < children <= {sandbox.EXTRA_PROCESSES + SLACK}, children  # stopped by the limit, long before 5000
""", test_timeout=10)
    assert result["exit_code"] == 0 and not result["timed_out"], result["output"]
    # and the sleeping children died with the sandbox: the run did not wait 30 s for them


def test_an_infinite_loop_is_killed_at_the_timeout_with_its_children(workspace):
    marker = f"coding-loop-marker-{uuid.uuid4().hex}"
    # The grandchild starts its own session: it escapes the process group, not the namespace.
    with watching(marker) as seen:
        result = probe(workspace, grandchild(marker, escape=True) + "while True:\n    pass", test_timeout=1.0)
    assert result["timed_out"] is True and seen, "the grandchild never started"
    assert gone_soon(marker)  # the PID namespace took the escaped child too


def test_without_bubblewrap_the_result_says_so(workspace, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no bwrap on it
    sandbox.detect.cache_clear()
    try:
        assert sandbox.detect()[0] == "none" and "not installed" in sandbox.detect()[1]
        result = RepoTools(workspace).run_tests()
        assert result["sandbox"] == "none" and "not installed" in result["sandbox_warning"]
        assert result["exit_code"] == 1  # the tests still run, unsandboxed, and say so
        with pytest.raises(OSError, match="sandbox is required"):
            RepoTools(workspace, sandbox_mode="require")
    finally:
        sandbox.detect.cache_clear()


def test_sandbox_can_be_turned_off_explicitly_and_that_is_reported(workspace):
    result = RepoTools(workspace, sandbox_mode="none").run_tests()
    assert result["sandbox"] == "none" and result["sandbox_warning"] == "sandbox turned off"


def test_host_daemon_sockets_under_run_are_out_of_reach(workspace):
    path = Path("/run") / f"coding-loop-{uuid.uuid4().hex[:8]}.sock"
    if not os.access("/run", os.W_OK):
        pytest.skip("cannot create a socket in /run here")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        os.chmod(path, 0o777)  # so only the sandbox, not file permissions, can keep the probe out
        listener.listen()
        try:
            result = probe(workspace, f"""
client = socket.socket(socket.AF_UNIX)
try:
    client.connect("{path}")
    raise AssertionError("reached a host daemon's socket")
except OSError as error:
    assert "reached" not in str(error)
""")
        finally:
            path.unlink()
    assert result["exit_code"] == 0, result["output"]


def test_the_limits_are_in_force_inside_and_a_4_gib_allocation_fails(workspace):
    result = probe(workspace, f"""
import resource
try:
    block = bytearray(4 * 1024**3)
    raise AssertionError("allocated 4 GiB")
except MemoryError:
    pass
assert resource.getrlimit(resource.RLIMIT_AS)[0] == {sandbox.MEMORY_BYTES}
assert resource.getrlimit(resource.RLIMIT_CPU)[0] == 7          # the timeout (2 s) plus 5
assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == {sandbox.FILE_BYTES}
assert 0 < resource.getrlimit(resource.RLIMIT_NPROC)[0] < 10_000
""", test_timeout=2)
    assert result["exit_code"] == 0, result["output"]
