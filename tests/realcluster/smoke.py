#!/usr/bin/env python3
"""The started control plane as a user checks kind: `kubectl version` reports the pinned release,
the kwok nodes are Ready, a Deployment's pods reach Running, and the three contexts are an admin
(client certificate), an admin by token and a viewer that may read but not write.

    smoke.py KUBECONFIG KUBECTL VERSIONFILE
"""
import json
import os
import subprocess
import sys
import time
import uuid

kubeconfig, kubectl, version_file = sys.argv[1:4]
failures = []


def run(*args, context=None, stdin=None, check=True):
    argv = [kubectl, "--kubeconfig", kubeconfig] + (["--context", context] if context else []) + list(args)
    result = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)
    if check and result.returncode != 0:
        sys.exit("FAIL: kubectl %s: %s" % (" ".join(args), result.stderr.strip()))
    return result


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


release = [l.split("=", 1)[1].strip() for l in open(version_file) if l.startswith("KUBE_VERSION=")][0]
versions = json.loads(run("version", "-o", "json").stdout)
expect(versions["serverVersion"]["gitVersion"] == release,
       "server reports %s (got %s)" % (release, versions["serverVersion"]["gitVersion"]))
expect(versions["clientVersion"]["gitVersion"] == release, "kubectl is %s too" % release)

nodes = json.loads(run("get", "nodes", "-o", "json").stdout)["items"]
ready = [n["metadata"]["name"] for n in nodes
         if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions", []))]
expect(len(nodes) >= 1 and len(ready) == len(nodes), "every node Ready: %s" % ", ".join(ready))
expect("Ready" in run("get", "nodes").stdout, "kubectl get nodes shows Ready")

config = json.loads(run("config", "view", "-o", "json", "--raw").stdout)
expect(config["current-context"] == "kind-reconscope", "current context is kind-reconscope")
users = {u["name"]: u["user"] for u in config["users"]}
contexts = {c["name"]: c["context"]["user"] for c in config["contexts"]}
token_contexts = [c for c, u in contexts.items() if "token" in users[u]]
cert_contexts = [c for c, u in contexts.items() if "client-certificate-data" in users[u]]
expect(len(token_contexts) == 1 and len(cert_contexts) == 2, "one token context, two certificate ones")

ns = "smoke-" + uuid.uuid4().hex[:8]
run("create", "namespace", ns)
try:
    run("create", "deployment", "web", "--image=registry.example.com/web:1.0", "--replicas=2", "-n", ns)
    deadline = time.monotonic() + 90
    phases = []
    while time.monotonic() < deadline:
        pods = json.loads(run("get", "pods", "-n", ns, "-o", "json").stdout)["items"]
        phases = [p.get("status", {}).get("phase") for p in pods]
        if len(phases) == 2 and all(p == "Running" for p in phases):
            break
        time.sleep(0.5)
    expect(phases == ["Running", "Running"], "the Deployment's two pods Running (%s)" % phases)
    available = json.loads(run("get", "deployment", "web", "-n", ns, "-o", "json").stdout)
    expect(available.get("status", {}).get("availableReplicas") == 2, "the Deployment has 2 available replicas")

    for context in token_contexts + cert_contexts:
        can_write = run("auth", "can-i", "create", "configmaps", "-n", ns, context=context, check=False)
        can_read = run("get", "deployments", "-n", ns, context=context, check=False)
        role = "writes" if can_write.stdout.strip() == "yes" else "reads"
        print("     context %s: %s" % (context, role))
        expect(can_read.returncode == 0, "context %s can read" % context)
    viewers = [c for c in cert_contexts
               if run("auth", "can-i", "create", "configmaps", "-n", ns, context=c, check=False).stdout.strip() == "no"]
    expect(len(viewers) == 1, "exactly one context is a viewer")
    if viewers:
        denied = run("create", "configmap", "x", "-n", ns, context=viewers[0], check=False)
        expect(denied.returncode != 0 and "forbidden" in denied.stderr, "the viewer's write is Forbidden")
finally:
    run("delete", "namespace", ns, "--wait=false", check=False)

if failures:
    sys.exit("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
print("smoke: all checks passed")
