#!/usr/bin/env python3
"""`cluster.py up` then `down` in a state directory of their own: afterwards no process that `up`
started is alive, none has the state directory on its command line, and the directory is gone.

    lifecycle.py CLUSTER_TOOL BIN_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import time

tool, binaries = sys.argv[1:3]
state = os.path.join(tempfile.mkdtemp(prefix="reconscope-lifecycle-"), "state")
started = time.monotonic()
subprocess.run([sys.executable, tool, "up", "--bin", binaries, "--state", state, "--nodes", "1"],
               check=True, stdout=subprocess.DEVNULL)
print("up in %.1f s" % (time.monotonic() - started))
with open(os.path.join(state, "state.json")) as f:
    pids = {name: p["pid"] for name, p in json.load(f)["processes"].items()}
expected = {"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}
if set(pids) != expected:
    sys.exit("FAIL: up started %s, expected %s" % (sorted(pids), sorted(expected)))
subprocess.run([sys.executable, tool, "down", "--state", state], check=True)
os.rmdir(os.path.dirname(state))


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None


# A pid may have been reused by then; it counts when it still runs one of the binaries.
left = [name for name, pid in pids.items() if (cmdline(pid) or "").startswith(binaries)]
strays = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
          if state in (cmdline(pid) or "") and pid != os.getpid()]
if left or strays or os.path.exists(state):
    sys.exit("FAIL: left behind: processes %s %s, directory %s"
             % (left, strays, state if os.path.exists(state) else "removed"))
print("down: no process and no directory left")
