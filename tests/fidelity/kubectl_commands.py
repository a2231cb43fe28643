#!/usr/bin/env python3
"""kubectl's typed commands, as an SRE types them, against `reconscope serve` and kube-apiserver.

The same commands run in order against a fresh embedded cluster and a fresh kube-apiserver + etcd
(tools/fidelity/servers.py, as the fidelity harness starts them). Each must succeed on both and
print the same line; then the objects they made are read back with `kubectl get -o json` and
compared after tools/fidelity/normalize.py's normalization. What the typed commands send: protobuf
create bodies (namespace, configmap, secret, deployment), a merge patch of /scale (scale), merge
patches of metadata (label, annotate) and strategic merge patches of the pod template (rollout
restart, set image), and a protobuf SelfSubjectAccessReview (auth can-i).

Compared apart from what only a controller writes, since the real side runs none (as envtest):
a Deployment's status, the managedFields entry of that status and its
`deployment.kubernetes.io/revision` annotation. managedFields are compared otherwise (times
normalized). The time `rollout
restart` stamps into the template differs by nature and is normalized.

    kubectl_commands.py --embedded build/app/reconscope --kube-bin ~/.cache/reconscope/.../bin
Exits 1 naming every difference.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "fidelity"))

from normalize import Normalizer, differences  # noqa: E402
from servers import on_both_servers  # noqa: E402

NS = ["-n", "team-a"]
COMMANDS = [
    ["create", "namespace", "team-a"],
    ["create", "configmap", "c", "--from-literal=a=b"] + NS,
    ["create", "secret", "generic", "s", "--from-literal=a=b"] + NS,
    ["create", "deployment", "d", "--image=nginx"] + NS,
    ["scale", "deployment", "d", "--replicas=3"] + NS,
    ["label", "deployment", "d", "tier=web"] + NS,
    ["annotate", "deployment", "d", "owner=sre"] + NS,
    ["label", "namespace", "team-a", "env=prod"],
    ["rollout", "restart", "deployment", "d"] + NS,
    ["set", "image", "deployment/d", "nginx=nginx:1.27"] + NS,
    ["label", "configmap", "c", "tier-"] + NS,  # removing a label that is not there
    ["annotate", "secret", "s", "rotated=yes"] + NS,
    ["auth", "can-i", "patch", "deployments"] + NS,  # a SelfSubjectAccessReview, as k9s asks
]
OBJECTS = [["namespace", "team-a"], ["configmap", "c"] + NS, ["secret", "s"] + NS,
           ["deployment", "d"] + NS]
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
CONTROLLER_ANNOTATIONS = ("deployment.kubernetes.io/revision",)


def kubectl(binary, kubeconfig, args):
    result = subprocess.run([binary, "--kubeconfig", kubeconfig] + args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=60)
    return result.returncode, result.stdout.strip(), result.stderr.strip()


def comparable(obj):
    """An object read back, less what only a controller writes, the restart time normalized."""
    if obj.get("kind") == "Deployment":
        obj.pop("status", None)
        meta = obj.get("metadata", {})
        if isinstance(meta.get("managedFields"), list):
            meta["managedFields"] = [e for e in meta["managedFields"]
                                     if e.get("subresource") != "status"]
        annotations = obj.get("metadata", {}).get("annotations", {})
        for key in CONTROLLER_ANNOTATIONS:
            annotations.pop(key, None)
        if not annotations:
            obj.get("metadata", {}).pop("annotations", None)
        template = obj.get("spec", {}).get("template", {}).get("metadata", {})
        if RESTARTED_AT in template.get("annotations", {}):
            template["annotations"][RESTARTED_AT] = "<time>"
    return obj


def run_side(server, binary, out):
    """Runs the commands and reads the objects back into out: {"commands": [...], "objects": [...]}"""
    try:
        server.start()
        normalizer = Normalizer()
        out["commands"] = [kubectl(binary, server.kubeconfig, c) for c in COMMANDS]
        objects = []
        for args in OBJECTS:
            code, text, err = kubectl(binary, server.kubeconfig, ["get", "-o", "json"] + args)
            obj = json.loads(text) if code == 0 else {"error": err}
            objects.append(normalizer.answer("", code, comparable(obj))[1])
        out["objects"] = objects
    except Exception as e:  # reported by the caller, with the other side's result
        out["error"] = repr(e)
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedded", required=True, help="the reconscope executable")
    parser.add_argument("--kube-bin", required=True, help="the control plane's bin directory")
    args = parser.parse_args()
    kubectl_binary = os.path.join(os.path.abspath(args.kube_bin), "kubectl")
    results = on_both_servers(args.embedded, args.kube_bin, "reconscope-kubectl-commands-",
                              lambda server, out, _: run_side(server, kubectl_binary, out))
    real, embedded = results["real"], results["embedded"]
    for name, side in results.items():
        if "error" in side:
            sys.exit("kubectl_commands: the %s side failed: %s" % (name, side["error"]))
    failures = []
    for command, r, e in zip(COMMANDS, real["commands"], embedded["commands"]):
        line = "kubectl " + " ".join(command)
        if r[0] != 0:
            failures.append("%s: fails on the real server too (%s): the test is wrong" % (line, r[2]))
        elif e[0] != 0:
            failures.append("%s: exit %d on the embedded cluster: %s" % (line, e[0], e[2]))
        elif r[1] != e[1]:
            failures.append("%s: printed %r (real) / %r (embedded)" % (line, r[1], e[1]))
        else:
            print("same  %s: %s" % (line, e[1]))
    for what, r, e in zip(OBJECTS, real["objects"], embedded["objects"]):
        name = "/".join(what[:2])
        diff = differences(r, e)
        if diff:
            failures.append("%s differs:\n    %s" % (name, "\n    ".join(diff)))
        else:
            print("same  %s" % name)
    for failure in failures:
        print("FAIL  " + failure)
    print("kubectl_commands: %d commands, %d objects, %d differences"
          % (len(COMMANDS), len(OBJECTS), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
