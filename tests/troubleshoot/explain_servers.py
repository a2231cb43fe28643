#!/usr/bin/env python3
"""`reconscope explain` on both servers: seeded cases, the right first cause on each.

A fresh kube-apiserver + etcd and a fresh `reconscope serve` (tools/fidelity/servers.py) get the
same objects and statuses through kubectl, as a controller would leave them; `reconscope explain
-o json` must then name the same first cause on both, the one the rules (docs/troubleshooting.md)
give. The real side runs no controller, so what a controller would write there (a Deployment's
ReplicaFailure, a Pod waiting on its image) is written by hand; the embedded side's workload
simulator writes the same on its own, and both are held to it.

    explain_servers.py --embedded build/app/reconscope --kube-bin ~/.cache/reconscope/.../bin
Exits 1 naming every difference.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "fidelity"))

from servers import on_both_servers  # noqa: E402

CUSTOMAPP_CRD = os.path.join(ROOT, "resources", "crds", "customapps.infrastructure.internal.net.yaml")
NS = "triage"
QUOTA_NS = "triage-quota"  # a quota of no pods, for the one case it is meant for
# case -> (namespace, the explain target, the first cause's kind, a pattern its summary holds)
EXPECTED = {
    "stalled": (NS, "customapp/ledger", "stalled", "Stalled=True: InvalidSpec"),
    "stale": (NS, "customapp/shop", "stale-status", "generation 2, observed 1"),
    "finalizer": (NS, "customapp/old", "deletion-waits", "example.com/foreign"),
    "nostatus": (NS, "customapp/fresh", "no-controller", "no status yet"),
    "quota": (QUOTA_NS, "customapp/ingest", "workload-failing", "cannot create pods"),
    # The kubelet (the embedded simulator's) says ErrImagePull first, then ImagePullBackOff.
    "imagepull": (NS, "customapp/thumbs", "workload-failing",
                  "container app waiting: (ImagePullBackOff|ErrImagePull)"),
    "flux": (NS, "kustomization/podinfo", "condition-failing", "Ready=False: ArtifactFailed"),
    "certmanager": (NS, "certificate/defaults-example-certificate-tls", "condition-failing",
                    "Ready=False: DoesNotExist"),
}


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(kind, status, reason):
    return {"type": kind, "status": status, "reason": reason, "message": reason + " happened",
            "lastTransitionTime": now(), "observedGeneration": 1}


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

    def create(self, obj):
        return json.loads(self.run(["create", "-o", "json", "-f", "-"], json.dumps(obj)))

    def status(self, resource, name, status, ns=NS):
        self.run(["patch", resource, name, "-n", ns, "--subresource=status", "--type=merge",
                  "-p", json.dumps({"status": status})])

    def app(self, name, image="nginx", ns=NS, **metadata):
        meta = {"name": name, "namespace": ns}
        meta.update(metadata)
        return self.create({"apiVersion": "infrastructure.internal.net/v1", "kind": "CustomApp",
                            "metadata": meta, "spec": {"image": image, "replicas": 1}})

    def owned_deployment(self, owner, image, conditions):
        labels = {"app": owner["metadata"]["name"]}
        ns = owner["metadata"]["namespace"]
        self.create({"apiVersion": "apps/v1", "kind": "Deployment",
                     "metadata": {"name": owner["metadata"]["name"], "namespace": ns,
                                  "ownerReferences": [{
                                      "apiVersion": "infrastructure.internal.net/v1",
                                      "kind": "CustomApp", "name": owner["metadata"]["name"],
                                      "uid": owner["metadata"]["uid"], "controller": True}]},
                     "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                              "template": {"metadata": {"labels": labels},
                                           "spec": {"containers": [{"name": "app",
                                                                    "image": image}]}}}})
        if conditions:
            self.status("deployment", owner["metadata"]["name"],
                        {"replicas": 1, "readyReplicas": 0, "conditions": conditions}, ns)
        return labels

    def explain(self, ns, target):
        result = subprocess.run([self.reconscope, "explain", target, "-n", ns, "-o", "json",
                                 "--kubeconfig", self.kubeconfig], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, timeout=60)
        if result.returncode != 0:
            return {"error": result.stderr.strip()}
        return json.loads(result.stdout)


def seed(side, embedded):
    if not embedded:  # the embedded cluster serves CustomApp from the start
        side.run(["create", "-f", CUSTOMAPP_CRD])
    for crd in ("kustomize.toolkit.fluxcd.io_kustomizations.yaml", "cert-manager.io_certificates.yaml"):
        side.run(["create", "-f", os.path.join(ROOT, "..", "shared", "fixtures", "real-crds", "crds",
                                               crd)])
    side.run(["wait", "--for=condition=Established", "crd/customapps.infrastructure.internal.net",
              "crd/kustomizations.kustomize.toolkit.fluxcd.io",
              "crd/certificates.cert-manager.io"])
    side.run(["create", "namespace", NS])
    side.run(["create", "namespace", QUOTA_NS])

    side.app("ledger")
    side.status("customapp", "ledger", {"observedGeneration": 1, "conditions": [
        condition("Ready", "False", "InvalidSpec"), condition("Stalled", "True", "InvalidSpec")]})

    side.app("shop")
    side.status("customapp", "shop", {"observedGeneration": 1,
                                      "conditions": [condition("Ready", "True", "Available")]})
    side.run(["patch", "customapp", "shop", "-n", NS, "--type=merge", "-p",
              json.dumps({"spec": {"image": "nginx:1.27"}})])

    side.app("old", finalizers=["example.com/foreign"])
    side.run(["delete", "customapp", "old", "-n", NS, "--wait=false"])

    side.app("fresh")

    side.create({"apiVersion": "v1", "kind": "ResourceQuota",
                 "metadata": {"name": "pods", "namespace": QUOTA_NS},
                 "spec": {"hard": {"pods": "0"}}})
    ingest = side.app("ingest", ns=QUOTA_NS)
    side.owned_deployment(ingest, "nginx", None if embedded else [
        condition("ReplicaFailure", "True", "FailedCreate") | {
            "message": 'pods "ingest-1" is forbidden: exceeded quota: pods'}])

    thumbs = side.app("thumbs", image="example.com/thumbs:missing")
    labels = side.owned_deployment(thumbs, "example.com/thumbs:missing", None)
    if not embedded:  # the simulator's kubelet makes this pod and its waiting on the embedded side
        side.create({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "thumbs-1", "namespace": NS, "labels": labels},
                     "spec": {"containers": [{"name": "app",
                                              "image": "example.com/thumbs:missing"}]}})
        side.status("pod", "thumbs-1", {"phase": "Pending", "containerStatuses": [{
            "name": "app", "ready": False, "restartCount": 0, "image": "example.com/thumbs:missing",
            "imageID": "", "state": {"waiting": {"reason": "ImagePullBackOff",
                                                 "message": "Back-off pulling image"}}}]})

    with open(os.path.join(ROOT, "..", "shared", "fixtures", "real-crds", "objects",
                           "kustomization-ready-false-artifactfailed.yaml")) as f:
        flux = yaml.safe_load(f)
    status = flux.pop("status")
    flux["metadata"]["namespace"] = NS
    side.create(flux)
    side.run(["patch", "kustomization", "podinfo", "-n", NS, "--subresource=status",
              "--type=merge", "-p", json.dumps({"status": status})])

    # A real cert-manager Certificate, its Secret not issued yet; its Ingress owner is not there,
    # so the reference goes (the real side's garbage collector would delete it), as do the
    # fields a create may not carry.
    with open(os.path.join(ROOT, "..", "shared", "fixtures", "real-crds", "objects",
                           "certificate-issuing-ready-false.yaml")) as f:
        certificate = yaml.safe_load(f)
    status = certificate.pop("status")
    for field in ("ownerReferences", "uid", "resourceVersion", "creationTimestamp", "generation"):
        certificate["metadata"].pop(field, None)
    certificate["metadata"]["namespace"] = NS
    side.create(certificate)
    side.run(["patch", "certificate", certificate["metadata"]["name"], "-n", NS,
              "--subresource=status", "--type=merge", "-p", json.dumps({"status": status})])


def run_side(server, kubectl, reconscope, out):
    try:
        server.start()
        side = Side(kubectl, server.kubeconfig, reconscope)
        embedded = server.name == "embedded"
        seed(side, embedded)
        if embedded:  # what the workload simulator makes of the Deployments, given a moment
            import time
            time.sleep(3)
        out.update({case: side.explain(ns, target)
                    for case, (ns, target, _, _) in EXPECTED.items()})
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
    results = on_both_servers(reconscope, args.kube_bin, "reconscope-explain-",
                              lambda server, out, _: run_side(server, kubectl, reconscope, out))
    failures = []
    for side, result in results.items():
        if "error" in result:
            failures.append("the %s side failed: %s" % (side, result["error"]))
            continue
        for case, (_, target, kind, words) in EXPECTED.items():
            answer = result[case]
            causes = answer.get("causes") or [{}]
            first = causes[0]
            if first.get("kind") != kind or not re.search(words, first.get("summary", "")):
                failures.append("%s %s (%s): first cause %s %r, expected %s with %r" % (
                    side, case, target, first.get("kind"), first.get("summary") or answer,
                    kind, words))
            else:
                print("same  %s %-10s %s: %s" % (side, case, kind, first["summary"]))
        # Both servers keep managedFields: who added the finalizer is named on each.
        evidence = "\n".join((result["finalizer"].get("causes") or [{}])[0].get("evidence", []))
        if "example.com/foreign, added by kubectl" not in evidence:
            failures.append("%s finalizer: who added it is not named:\n%s" % (side, evidence))
    for failure in failures:
        print("FAIL  " + failure)
    print("explain_servers: %d cases on 2 servers, %d differences" % (len(EXPECTED), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
