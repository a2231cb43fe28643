#!/usr/bin/env python3
"""A kubectl capture taken live, imported and replayed, on both servers.

On a fresh kube-apiserver + etcd and a fresh `reconscope serve` (tools/fidelity/servers.py), at
once: the CustomApp CRD is installed, `kubectl get customapps -A -w --output-watch-events -o json`
runs as an SRE would leave it running, and one CustomApp goes through every state as a
controller would drive it (created without status, Reconciling, Ready, Degraded, deleted while a
finalizer holds it, the finalizer removed). The capture is kept twice: as kubectl printed it
(untimed) and with each line stamped as `ts '%.s'` stamps it. Then `reconscope replay` reads
each with the CRD kubectl printed (`kubectl get crd -o json`), and the transitions of that
object must be the ones the lifecycle rules give, in order, the same on both servers; the
stamped capture's times are the recorded ones (not marked estimated) and never go backwards.

A sentinel object is created first, and the changes wait until kubectl has printed it and a
change of it, so that they come as watch events, not as the list kubectl starts with.

    kubectl_capture.py --embedded build/app/reconscope --kube-bin ~/.cache/reconscope/.../bin
Exits 1 naming every difference.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "fidelity"))

from servers import on_both_servers  # noqa: E402

CRD_NAME = "customapps.infrastructure.internal.net"
CRD_FILE = os.path.join(ROOT, "resources", "crds", CRD_NAME + ".yaml")
NS = ["-n", "demo"]
KEY = "demo/web"
# (from, to) of demo/web, as the lifecycle rules read each step below.
EXPECTED = [("[*]", "Pending"), ("Pending", "Reconciling"), ("Reconciling", "Ready"),
            ("Ready", "Degraded"), ("Degraded", "Terminating"), ("Terminating", "[*]")]
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def app(name):
    return json.dumps({"apiVersion": "infrastructure.internal.net/v1", "kind": "CustomApp",
                       "metadata": {"name": name, "namespace": "demo"},
                       "spec": {"image": "ghcr.io/example/%s:1.0" % name, "replicas": 1}})


def condition(kind, reason):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"type": kind, "status": "True", "reason": reason, "message": reason,
            "lastTransitionTime": now, "observedGeneration": 1}


def status(kind, reason):
    return json.dumps({"status": {"observedGeneration": 1,
                                  "conditions": [condition(kind, reason)]}})


class Capture:
    """kubectl's watch, its lines kept untimed and stamped with the epoch time they came."""

    def __init__(self, kubectl, workdir):
        self.plain = os.path.join(workdir, "capture.jsonl")
        self.stamped = os.path.join(workdir, "capture-epoch.jsonl")
        self.lines = []
        self.proc = subprocess.Popen(
            kubectl + ["get", "customapps", "-A", "-w", "--output-watch-events", "-o", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        with open(self.plain, "w") as plain, open(self.stamped, "w") as stamped:
            for line in self.proc.stdout:
                stamped.write("%.6f %s" % (time.time(), line))
                plain.write(line)
                plain.flush()
                stamped.flush()
                self.lines.append(line)

    def wait_for(self, text, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if any(text in line for line in self.lines):
                return
            time.sleep(0.05)
        raise RuntimeError("kubectl's watch never printed %r" % text)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.reader.join(timeout=10)


def run(command, stdin=None):
    result = subprocess.run(command, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(command[2:]), result.returncode,
                                                result.stderr.strip()))
    return result.stdout


def drive(kubectl, capture):
    """demo/web through every state, each step once kubectl has printed the one before."""
    def patch(what, subresource=None):
        extra = ["--subresource=" + subresource] if subresource else []
        run(kubectl + ["patch", "customapp", "web", "--type=merge", "-p", what] + extra + NS)

    # A change of the sentinel first: whatever a reader takes for kubectl's initial list ends
    # before it.
    run(kubectl + ["patch", "customapp", "sentinel", "--type=merge", "--subresource=status", "-p",
                   status("Ready", "Available")] + NS)
    capture.wait_for('"MODIFIED"')
    run(kubectl + ["create", "-f", "-"], app("web"))
    capture.wait_for('"name":"web"')
    steps = [(lambda: patch(status("Reconciling", "Progressing"), "status"), '"Progressing"'),
             (lambda: patch(status("Ready", "Available"), "status"), '"Available"'),
             (lambda: patch(status("Degraded", "ImagePullBackOff"), "status"), '"ImagePullBackOff"'),
             (lambda: patch(json.dumps({"metadata": {"finalizers": ["example.net/cleanup"]}})),
              '"example.net/cleanup"'),
             (lambda: run(kubectl + ["delete", "customapp", "web", "--wait=false"] + NS),
              '"deletionTimestamp"'),
             (lambda: patch(json.dumps({"metadata": {"finalizers": None}})), '"DELETED"')]
    for step, printed in steps:
        step()
        capture.wait_for(printed)


def run_side(server, kubectl_binary, reconscope, workdir, out):
    capture = None
    try:
        server.start()
        kubectl = [kubectl_binary, "--kubeconfig", server.kubeconfig]
        if server.name != "embedded":  # the embedded cluster serves CustomApp from the start
            run(kubectl + ["create", "-f", CRD_FILE])
            run(kubectl + ["wait", "--for=condition=Established", "crd/" + CRD_NAME])
        run(kubectl + ["create", "namespace", "demo"])
        crd = os.path.join(workdir, "crd.json")
        with open(crd, "w") as f:
            f.write(run(kubectl + ["get", "crd", CRD_NAME, "-o", "json"]))
        run(kubectl + ["create", "-f", "-"], app("sentinel"))
        capture = Capture(kubectl, workdir)
        capture.wait_for('"name":"sentinel"')
        drive(kubectl, capture)
        capture.stop()
        for name, path in (("untimed", capture.plain), ("stamped", capture.stamped)):
            printed = run([reconscope, "replay", path, crd, "--speed", "max", "-o", "json"])
            out[name] = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    except Exception as e:  # reported by the caller, with the other side's result
        out["error"] = repr(e)
    finally:
        if capture and capture.proc.poll() is None:
            capture.stop()
        server.stop()


def check(side, name, records):
    failures = []
    mine = [r for r in records if r.get("key") == KEY]
    got = [(r["from"], r["to"]) for r in mine]
    if got != EXPECTED:
        failures.append("%s, %s capture: transitions %s, expected %s" % (side, name, got, EXPECTED))
    times = [r["time"] for r in mine]
    if name == "stamped":
        if any(r.get("timeEstimated") for r in mine):
            failures.append("%s: the stamped capture's times are marked estimated" % side)
        if times != sorted(times):
            failures.append("%s: the stamped capture's times go backwards: %s" % (side, times))
    elif mine and not all(r.get("timeEstimated") for r in mine):
        failures.append("%s: the untimed capture's times are not marked estimated" % side)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedded", required=True, help="the reconscope executable")
    parser.add_argument("--kube-bin", required=True, help="the control plane's bin directory")
    args = parser.parse_args()
    kubectl_binary = os.path.join(os.path.abspath(args.kube_bin), "kubectl")
    reconscope = os.path.abspath(args.embedded)
    results = on_both_servers(
        reconscope, args.kube_bin, "reconscope-kubectl-capture-",
        lambda server, out, workdir: run_side(server, kubectl_binary, reconscope, workdir, out))
    failures = []
    for side, result in results.items():
        if "error" in result:
            failures.append("the %s side failed: %s" % (side, result["error"]))
            continue
        for name in ("untimed", "stamped"):
            failures += check(side, name, result[name])
    if not failures:
        # The reasons name times (a deletion's): the same words apart from those.
        reasons = {side: [(r["from"], r["to"], re.sub(TIME, "<time>", r["reason"]))
                          for r in result["stamped"] if r.get("key") == KEY]
                   for side, result in results.items()}
        if reasons["real"] != reasons["embedded"]:
            failures.append("the reasons differ: real %s, embedded %s"
                            % (reasons["real"], reasons["embedded"]))
        for f, t, reason in reasons["real"]:
            print("same  %s  %s -> %s  %s" % (KEY, f, t, reason))
    for failure in failures:
        print("FAIL  " + failure)
    print("kubectl_capture: %d transitions expected, %d differences" % (len(EXPECTED), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
