#!/usr/bin/env python3
"""`reconscope fields` on both servers: the owners it names are the servers' own managedFields.

A fresh kube-apiserver + etcd and a fresh `reconscope serve` (tools/fidelity/servers.py) each get
a CustomApp written three ways: `kubectl create` (manager kubectl-create), the CustomApp
reconciler (`reconscope reconcile`: its finalizer and /status, manager reconscope), and a
server-side apply that forces .spec.replicas (`kubectl apply --server-side --field-manager gitops
--force-conflicts`). On each side `reconscope fields -o json` must list, for every field, exactly
the owners the object's managedFields give (decoded here independently of the product), and
the owners of the spec and metadata fields must be the same on both servers.

    fields_servers.py --embedded build/app/reconscope --kube-bin ~/.cache/reconscope/.../bin
Exits 1 naming every difference.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "fidelity"))

from servers import on_both_servers  # noqa: E402

CUSTOMAPP_CRD = os.path.join(ROOT, "resources", "crds", "customapps.infrastructure.internal.net.yaml")
NS = "owners"
APP = {"apiVersion": "infrastructure.internal.net/v1", "kind": "CustomApp",
       "metadata": {"name": "web", "namespace": NS}, "spec": {"image": "nginx", "replicas": 1}}
APPLIED = {"apiVersion": "infrastructure.internal.net/v1", "kind": "CustomApp",
           "metadata": {"name": "web", "namespace": NS, "labels": {"team": "sre"}},
           "spec": {"image": "nginx", "replicas": 3}}


def element_text(key):
    """A fieldsV1 key as upstream prints the path element."""
    kind, _, rest = key.partition(":")
    if kind == "f":
        return "." + rest
    if kind == "k":
        fields = json.loads(rest)
        return "[" + ",".join("%s=%s" % (k, json.dumps(v, separators=(",", ":")))
                              for k, v in sorted(fields.items())) + "]"
    if kind == "v":
        return "[=" + json.dumps(json.loads(rest), separators=(",", ":")) + "]"
    return "[" + rest + "]"


def owned_paths(fields, prefix=""):
    """Every path a fieldsV1 set holds (members: leaves, and containers marked ".")."""
    for key, below in fields.items():
        if key == ".":
            yield prefix
            continue
        path = prefix + element_text(key)
        if not below:
            yield path
        else:
            yield from owned_paths(below, path)


def owners_from_managed_fields(obj):
    owners = {}
    for entry in obj["metadata"].get("managedFields", []):
        who = (entry["manager"], entry["operation"], entry.get("subresource", ""))
        for path in owned_paths(entry.get("fieldsV1", {})):
            owners.setdefault(path, []).append(who)
    return {path: sorted(who) for path, who in owners.items()}


def owners_from_fields_output(answer):
    return {field["path"]: sorted((o["manager"], o["operation"], o["subresource"])
                                  for o in field["owners"])
            for field in answer["fields"]}


class Side:
    def __init__(self, kubectl, kubeconfig, reconscope):
        self.kubectl = [kubectl, "--kubeconfig", kubeconfig]
        self.kubeconfig = kubeconfig
        self.reconscope = reconscope

    def run(self, args, stdin=None):
        result = subprocess.run(self.kubectl + args, input=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError("kubectl %s: %s" % (" ".join(args), result.stderr.strip()))
        return result.stdout

    def get(self):
        return json.loads(self.run(["get", "customapp", "web", "-n", NS, "-o", "json",
                                    "--show-managed-fields"]))

    def reconcile_once(self, workdir):
        """Runs the reconciler until it has written the app's status."""
        log = open(os.path.join(workdir, "reconcile.log"), "w")
        process = subprocess.Popen([self.reconscope, "reconcile", "--kubeconfig", self.kubeconfig,
                                    "-n", NS, "--leader-elect=false",
                                    "--metrics-bind-address", "0"], stdout=log, stderr=log)
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                status = self.get().get("status", {})
                if status.get("observedGeneration") is not None:
                    return
                time.sleep(0.5)
            raise RuntimeError("the reconciler wrote no status within 60 s")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            log.close()

    def fields(self):
        result = subprocess.run([self.reconscope, "fields", "customapp/web", "-n", NS, "-o", "json",
                                 "--kubeconfig", self.kubeconfig], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError("reconscope fields: " + result.stderr.strip())
        return json.loads(result.stdout)


def run_side(server, kubectl, reconscope, out, workdir):
    try:
        server.start()
        side = Side(kubectl, server.kubeconfig, reconscope)
        if server.name != "embedded":  # the embedded cluster serves CustomApp from the start
            side.run(["create", "-f", CUSTOMAPP_CRD])
            side.run(["wait", "--for=condition=Established",
                      "crd/customapps.infrastructure.internal.net"])
        side.run(["create", "namespace", NS])
        side.run(["create", "-f", "-"], json.dumps(APP))
        side.reconcile_once(workdir)
        side.run(["apply", "--server-side", "--field-manager", "gitops", "--force-conflicts",
                  "-f", "-"], json.dumps(APPLIED))
        out["object"] = side.get()
        out["fields"] = side.fields()
    except Exception as e:  # reported by the caller, with the other side's result
        out["error"] = repr(e)
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedded", required=True, help="the reconscope executable")
    parser.add_argument("--kube-bin", required=True, help="the control plane's bin directory")
    args = parser.parse_args()
    kubectl = os.path.join(os.path.abspath(args.kube_bin), "kubectl")
    reconscope = os.path.abspath(args.embedded)
    results = on_both_servers(reconscope, args.kube_bin, "reconscope-fields-",
                              lambda server, out, workdir: run_side(server, kubectl, reconscope,
                                                                    out, workdir))
    failures = []
    desired = {}
    for side, result in results.items():
        if "error" in result:
            failures.append("the %s side failed: %s" % (side, result["error"]))
            continue
        expected = owners_from_managed_fields(result["object"])
        listed = owners_from_fields_output(result["fields"])
        for path in sorted(set(expected) | set(listed)):
            if expected.get(path) != listed.get(path):
                failures.append("%s %s: managedFields say %s, reconscope fields says %s" % (
                    side, path, expected.get(path), listed.get(path)))
        managers = {o[0] for owners in expected.values() for o in owners}
        for manager in ("kubectl-create", "reconscope", "gitops"):
            if manager not in managers:
                failures.append("%s: no field owned by %s: %s" % (side, manager, expected))
        if expected.get(".spec.replicas") != [("gitops", "Apply", "")]:
            failures.append("%s: .spec.replicas owned by %s, not gitops alone" % (
                side, expected.get(".spec.replicas")))
        desired[side] = {path: owners for path, owners in expected.items()
                         if not path.startswith(".status")}
        print("%s: %d fields, managers %s" % (side, len(listed), ", ".join(sorted(managers))))
    if len(desired) == 2 and desired["real"] != desired["embedded"]:
        for path in sorted(set(desired["real"]) | set(desired["embedded"])):
            if desired["real"].get(path) != desired["embedded"].get(path):
                failures.append("%s: real %s, embedded %s" % (
                    path, desired["real"].get(path), desired["embedded"].get(path)))
    for failure in failures:
        print("FAIL  " + failure)
    print("fields_servers: %d differences" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
