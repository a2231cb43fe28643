#!/usr/bin/env python3
"""Records how kube-apiserver keeps managedFields: a CRD with every list and map type, then
sequences of server-side applies and updates by two or more managers, each answer saved as an
expectation file that tests/fieldmanager/tst_fieldmanager replays through controller/fieldowner.

    record.py --kube-bin DIR [--out tests/fieldmanager/data] [--only NAME...] [--real-crds | --real-only]

Starts etcd + kube-apiserver as the fidelity harness does (tools/fidelity/servers.py RealServer),
stops them at the end. Writes are spaced by more than a second, so that every write has a time of
its own (managedFields times have second precision and order the entries); each time is saved as
the index of the step that wrote it (an entry without a time keeps none). Standard library and PyYAML only.
"""

import argparse
import copy
import json
import os
import sys
import tempfile
import time
import urllib.parse

import yaml

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "fidelity"))
from servers import RealServer  # noqa: E402

GROUP, VERSION, PLURAL, KIND = "fields.reconscope.dev", "v1", "gadgets", "Gadget"
API_VERSION = GROUP + "/" + VERSION
BASE = "/apis/%s/%s/namespaces/default/%s" % (GROUP, VERSION, PLURAL)

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": INTEGER,
                "image": STRING,
                "paused": {"type": "boolean"},
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                          "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"],
                                    "properties": {"name": STRING, "port": INTEGER,
                                                   "protocol": STRING}}},
                "endpoints": {"type": "array", "x-kubernetes-list-type": "map",
                              "x-kubernetes-list-map-keys": ["host", "port"],
                              "items": {"type": "object", "required": ["host", "port"],
                                        "properties": {"host": STRING, "port": INTEGER,
                                                       "weight": INTEGER}}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": STRING},
                "args": {"type": "array", "items": STRING},
                "command": {"type": "array", "x-kubernetes-list-type": "atomic",
                            "items": STRING},
                "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                             "additionalProperties": STRING},
                "config": {"type": "object", "additionalProperties": STRING},
                "limits": {"type": "object", "x-kubernetes-map-type": "atomic",
                           "properties": {"cpu": STRING, "memory": STRING}},
                "template": {"type": "object",
                             "properties": {"owner": STRING, "tier": STRING,
                                            "env": {"type": "object",
                                                    "x-kubernetes-map-type": "granular",
                                                    "additionalProperties": STRING}}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "observed": INTEGER,
                "phase": STRING,
                "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["type"],
                               "items": {"type": "object", "required": ["type"],
                                         "properties": {"type": STRING, "status": STRING,
                                                        "reason": STRING}}},
            },
        },
    },
}

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": PLURAL + "." + GROUP},
    "spec": {"group": GROUP, "scope": "Namespaced",
             "names": {"plural": PLURAL, "singular": "gadget", "kind": KIND,
                       "listKind": KIND + "List"},
             "versions": [{"name": VERSION, "served": True, "storage": True,
                           "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": SCHEMA}}]},
}


def obj(name, spec=None, status=None, metadata=None):
    o = {"apiVersion": API_VERSION, "kind": KIND, "metadata": dict(metadata or {}, name=name)}
    if spec is not None:
        o["spec"] = spec
    if status is not None:
        o["status"] = status
    return o


def apply(manager, body, force=False, status=False):
    return {"op": "apply", "manager": manager, "force": force, "status": status, "body": body}


def update(body, manager=None, user_agent=None, status=False):
    """A PUT of `body` over the live object (its resourceVersion filled in)."""
    return {"op": "update", "manager": manager, "userAgent": user_agent, "status": status,
            "body": body}


def merge(body, manager=None, user_agent=None, status=False):
    return {"op": "merge", "manager": manager, "userAgent": user_agent, "status": status,
            "body": body}


def create(body, manager=None, user_agent=None):
    return {"op": "create", "manager": manager, "userAgent": user_agent, "status": False,
            "body": body}


def sequences():
    s = {}
    n = "apply-creates"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx:1.27",
                                    "ports": [{"name": "http", "port": 80}]},
                                metadata={"labels": {"app": "web"}}))]
    n = "two-appliers-disjoint"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx"})),
            apply("scaler", obj(n, {"tags": ["blue"], "paused": False}))]
    n = "apply-conflict"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx"})),
            apply("scaler", obj(n, {"replicas": 3}))]
    n = "apply-force"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx"})),
            apply("scaler", obj(n, {"replicas": 3})),
            apply("scaler", obj(n, {"replicas": 3}), force=True),
            apply("gitops", obj(n, {"replicas": 2, "image": "nginx"}))]
    n = "shared-ownership"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx"})),
            apply("scaler", obj(n, {"replicas": 2})),
            apply("gitops", obj(n, {"image": "nginx"})),
            apply("scaler", obj(n, {"paused": True}))]
    n = "removal-on-reapply"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx", "tags": ["a", "b"],
                                    "config": {"k1": "v1", "k2": "v2"}},
                                metadata={"labels": {"app": "web", "tier": "front"}})),
            apply("gitops", obj(n, {"image": "nginx", "tags": ["a"], "config": {"k1": "v1"}},
                                metadata={"labels": {"app": "web"}})),
            apply("gitops", obj(n, {}))]
    n = "update-vs-apply"
    s[n] = [create(obj(n, {"replicas": 1, "image": "nginx"}), manager="kubectl-create"),
            apply("gitops", obj(n, {"replicas": 1})),
            apply("gitops", obj(n, {"replicas": 5})),
            apply("gitops", obj(n, {"replicas": 5}), force=True)]
    n = "multi-conflict"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx", "tags": ["x"]})),
            merge({"spec": {"paused": True, "ports": [{"name": "http", "port": 80}]}},
                  manager="hand-edit"),
            apply("scaler", obj(n, {"replicas": 4, "image": "httpd", "paused": False,
                                    "ports": [{"name": "http", "port": 8080}]})),
            apply("scaler", obj(n, {"replicas": 4, "image": "httpd", "paused": False,
                                    "ports": [{"name": "http", "port": 8080}]}), force=True)]
    n = "list-map"
    s[n] = [apply("gitops", obj(n, {"ports": [{"name": "http", "port": 80},
                                              {"name": "https", "port": 443,
                                               "protocol": "TCP"}]})),
            apply("sidecar", obj(n, {"ports": [{"name": "metrics", "port": 9090}]})),
            apply("sidecar", obj(n, {"ports": [{"name": "https", "protocol": "UDP"}]})),
            apply("gitops", obj(n, {"ports": [{"name": "http", "port": 81}]})),
            apply("sidecar", obj(n, {"ports": [{"name": "metrics", "port": 9090},
                                               {"name": "http", "port": 81}]}))]
    n = "list-map-two-keys"
    s[n] = [apply("gitops", obj(n, {"endpoints": [{"host": "a", "port": 1, "weight": 1},
                                                  {"host": "a", "port": 2}]})),
            apply("lb", obj(n, {"endpoints": [{"host": "b", "port": 1},
                                              {"host": "a", "port": 1, "weight": 9}]})),
            apply("lb", obj(n, {"endpoints": [{"host": "b", "port": 1}]}))]
    n = "set-list"
    s[n] = [apply("gitops", obj(n, {"tags": ["b", "a", "c"]})),
            apply("labeler", obj(n, {"tags": ["z", "a"]})),
            apply("gitops", obj(n, {"tags": ["c"]})),
            merge({"spec": {"tags": ["c", "z", "new"]}}, manager="editor")]
    n = "atomic-list"
    s[n] = [apply("gitops", obj(n, {"args": ["--a", "--b"], "command": ["run"]})),
            apply("other", obj(n, {"args": ["--c"]})),
            apply("other", obj(n, {"args": ["--c"], "command": ["run"]}), force=True),
            apply("gitops", obj(n, {"command": ["run"]}))]
    n = "atomic-map"
    s[n] = [apply("gitops", obj(n, {"selector": {"app": "web"},
                                    "limits": {"cpu": "1", "memory": "1Gi"}})),
            apply("other", obj(n, {"selector": {"tier": "db"}})),
            apply("other", obj(n, {"limits": {"cpu": "1", "memory": "1Gi"}})),
            apply("other", obj(n, {"limits": {"cpu": "2"}}), force=True)]
    n = "granular-maps"
    s[n] = [apply("gitops", obj(n, {"config": {"a": "1"},
                                    "template": {"owner": "me", "env": {"X": "1"}}},
                                metadata={"annotations": {"note": "git"}})),
            apply("other", obj(n, {"config": {"b": "2"}, "template": {"env": {"Y": "2"}}},
                               metadata={"annotations": {"other": "x"}})),
            apply("gitops", obj(n, {"template": {"owner": "me"}}))]
    n = "status-subresource"
    s[n] = [apply("gitops", obj(n, {"replicas": 2})),
            apply("controller", obj(n, status={"observed": 2, "phase": "Ready",
                                               "conditions": [{"type": "Ready",
                                                               "status": "True"}]}),
                  status=True),
            merge({"status": {"phase": "Degraded", "conditions": [
                {"type": "Ready", "status": "False", "reason": "Crash"}]}},
                manager="kubelet-ish", status=True),
            apply("gitops", obj(n, {"replicas": 3}, status={"phase": "Ignored"})),
            apply("controller", obj(n, status={"observed": 3}), status=True)]
    n = "status-updates-retimed"
    s[n] = [create(obj(n, {"replicas": 1}), manager="gitops"),
            merge({"status": {"observed": 1, "phase": "Pending", "conditions": [
                {"type": "Ready", "status": "False", "reason": "Starting"}]}},
                manager="controller", status=True),
            merge({"status": {"conditions": [
                {"type": "Ready", "status": "False", "reason": "Starting"},
                {"type": "Live", "status": "True"}]}}, manager="probe", status=True),
            merge({"status": {"phase": "Running"}}, manager="controller", status=True),
            merge({"status": {"observed": 2, "conditions": [
                {"type": "Ready", "status": "True", "reason": "Done"},
                {"type": "Live", "status": "True"}]}}, manager="controller", status=True),
            merge({"status": {"conditions": [
                {"type": "Ready", "status": "True", "reason": "Done"},
                {"type": "Live", "status": "False"}]}}, manager="controller", status=True),
            merge({"status": {"phase": "Running"}}, manager="controller", status=True),
            merge({"status": {"phase": "Degraded"}}, manager="probe", status=True),
            merge({"status": {"observed": 3}}, manager="controller", status=True)]
    n = "update-manager-names"
    s[n] = [create(obj(n, {"replicas": 1}), user_agent="my-operator/v0.3.1 (linux/amd64) go"),
            merge({"spec": {"image": "a"}}, user_agent="kubectl/v1.36.3 (linux/amd64)"),
            merge({"spec": {"paused": True}}, manager="kubectl-client-side-apply",
                  user_agent="kubectl/v1.36.3"),
            merge({"spec": {"replicas": 2}}, user_agent=" spaced agent (x)/1"),
            merge({"spec": {"image": "b"}}, user_agent="long-" + "x" * 140 + "/1"),
            merge({"spec": {"args": ["x"]}}, user_agent="")]
    n = "update-takes-fields"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx", "tags": ["a"]})),
            merge({"spec": {"replicas": 7}}, manager="hpa"),
            merge({"spec": {"image": None, "tags": ["a", "b"]}}, manager="hpa"),
            apply("gitops", obj(n, {"replicas": 2, "tags": ["a"]})),
            merge({"spec": {"replicas": 8}}, manager="hpa")]
    n = "update-same-manager"
    s[n] = [create(obj(n, {"replicas": 1, "config": {"a": "1"}},
                       metadata={"labels": {"x": "y"}, "finalizers": ["f.example/one"]}),
                   manager="tool"),
            merge({"spec": {"config": {"b": "2"}}, "metadata": {"labels": {"z": "w"}}},
                  manager="tool"),
            merge({"spec": {"config": {"a": None}}}, manager="other"),
            merge({"spec": {"replicas": 1}}, manager="noop")]
    n = "apply-noop"
    s[n] = [apply("gitops", obj(n, {"replicas": 2})),
            apply("gitops", obj(n, {"replicas": 2})),
            apply("other", obj(n, {"replicas": 2}))]
    n = "before-first-apply"
    s[n] = [create(obj(n, {"replicas": 1, "image": "a"}), manager="old-client"),
            update(dict(obj(n, {"replicas": 1, "image": "a"}), metadata={"name": n,
                                                                   "managedFields": [{}]}),
                   manager="resetter"),
            update(obj(n, {"replicas": 1, "image": "b"}), manager="untracked"),
            apply("gitops", obj(n, {"replicas": 1, "paused": True})),
            apply("gitops", obj(n, {"paused": True}))]
    # An empty list is dropped when the custom resource's metadata is decoded (omitempty), so
    # it keeps the stored managedFields instead of resetting them.
    n = "empty-list-keeps"
    s[n] = [create(obj(n, {"replicas": 1}), manager="first"),
            update(dict(obj(n, {"replicas": 2}), metadata={"name": n, "managedFields": []}),
                   manager="second")]
    n = "preserve-unknown"
    s[n] = [apply("gitops", obj(n, {"extra": {"a": {"b": 1, "c": [1, 2]}, "d": "x"}})),
            apply("other", obj(n, {"extra": {"a": {"e": True}}})),
            apply("gitops", obj(n, {"extra": {"d": "x"}}))]
    n = "metadata-fields"
    s[n] = [apply("gitops", obj(n, {"replicas": 1}, metadata={
                "labels": {"a": "1"}, "annotations": {"n": "1"},
                "finalizers": ["x.example/f"]})),
            merge({"metadata": {"labels": {"b": "2"}, "finalizers": ["x.example/f",
                                                                      "y.example/g"]}},
                  manager="labeler"),
            apply("gitops", obj(n, {"replicas": 1}, metadata={"labels": {"a": "1"}}))]
    n = "full-update"
    s[n] = [apply("gitops", obj(n, {"replicas": 2, "image": "nginx", "tags": ["a"]})),
            update(obj(n, {"replicas": 2, "image": "httpd", "ports": [{"name": "p",
                                                                        "port": 1}]}),
                   manager="replacer")]
    n = "apply-invalid"
    s[n] = [apply("gitops", obj(n, {"replicas": 1})),
            apply("gitops", obj(n, {"replicas": "two"})),
            apply("gitops", obj(n, {"ports": [{"name": "a"}, {"name": "a", "port": 2}]})),
            apply("gitops", obj(n, {"tags": ["x", "x"]})),
            apply("gitops", obj(n, {"nope": 1})),
            apply("gitops", dict(obj(n, {"replicas": 1}), metadata={"name": n,
                                                                   "managedFields": []}))]
    n = "cap-update-managers"
    s[n] = [create(obj(n, {"config": {"m0": "0"}}), manager="m0")]
    s[n] += [merge({"spec": {"config": {"m%d" % i: str(i)}}}, manager="m%d" % i)
             for i in range(1, 12)]
    n = "force-over-shared"
    s[n] = [apply("a", obj(n, {"replicas": 1, "image": "x"})),
            apply("b", obj(n, {"replicas": 1})),
            apply("c", obj(n, {"replicas": 2})),
            apply("c", obj(n, {"replicas": 2}), force=True)]
    n = "same-name-update-then-apply"
    s[n] = [create(obj(n, {"replicas": 1}), manager="tool"),
            apply("tool", obj(n, {"replicas": 1, "image": "a"})),
            apply("tool", obj(n, {"replicas": 3, "image": "a"})),
            apply("tool", obj(n, {"image": "a"}))]
    # kubectl apply --server-side over an object kubectl applied client-side: conflicts with
    # fields the last-applied annotation still describes are taken silently, and the annotation
    # follows the new configuration.
    n = "kubectl-client-to-server-side"
    last = obj(n, {"replicas": 1, "image": "a"}, metadata={"annotations": {},
                                                          "namespace": "default"})
    annotation = {"kubectl.kubernetes.io/last-applied-configuration":
                  json.dumps(last, sort_keys=True, separators=(",", ":")) + "\n"}
    s[n] = [create(obj(n, {"replicas": 1, "image": "a"}, metadata={"annotations": annotation}),
                   manager="kubectl-client-side-apply"),
            apply("kubectl", obj(n, {"replicas": 2, "image": "a"})),
            merge({"spec": {"replicas": 5}}, manager="hpa"),
            apply("kubectl", obj(n, {"replicas": 3, "image": "a", "paused": True})),
            apply("kubectl", obj(n, {"replicas": 5, "image": "b", "tags": ["<&>"]}))]
    return s


def content_type(op):
    return {"apply": "application/apply-patch+yaml", "merge": "application/merge-patch+json",
            "update": "application/json", "create": "application/json"}[op]


def run_step(client, name, step, base=BASE):
    query = {}
    if step.get("manager"):
        query["fieldManager"] = step["manager"]
    if step.get("force"):
        query["force"] = "true"
    headers = {"Content-Type": content_type(step["op"])}
    if step.get("userAgent") is not None:
        headers["User-Agent"] = step["userAgent"]
    path = base if step["op"] == "create" else base + "/" + name
    if step["status"]:
        path += "/status"
    body = copy.deepcopy(step["body"])
    if step["op"] == "update":
        status, current = client.request("GET", base + "/" + name)
        body["metadata"]["resourceVersion"] = json.loads(current)["metadata"]["resourceVersion"]
    method = {"apply": "PATCH", "merge": "PATCH", "update": "PUT", "create": "POST"}[step["op"]]
    if query:
        path += "?" + urllib.parse.urlencode(query)
    status, answer = client.request(method, path, json.dumps(body).encode(), headers)
    return status, json.loads(answer)


def record(client, name, steps, base=BASE):
    times = {}  # server time -> index of the first step whose answer showed it
    out = []
    for index, step in enumerate(steps):
        time.sleep(1.2)
        code, answer = run_step(client, name, step, base)
        for entry in (answer.get("metadata", {}).get("managedFields") or []):
            if "time" not in entry:
                continue  # an applier whose apply changed nothing has none
            if entry["time"] not in times:
                times[entry["time"]] = index
            entry["time"] = times[entry["time"]]
        out.append(dict(step, code=code, answer=answer))
    return out


REAL_CRDS = os.path.join(ROOT, "..", "shared", "fixtures", "real-crds")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def real_sequences(client):
    """Sequences over the real CRDs of shared/fixtures/real-crds and their objects: the object's
    spec applied by "gitops", its status applied by "controller" through /status, a label edited
    by "kubectl-edit", the spec applied again without its first optional field. Objects of
    versions other than the CRD's storage version, or that their CRD refuses, are skipped."""
    crds = {}
    for name in sorted(os.listdir(os.path.join(REAL_CRDS, "crds"))):
        with open(os.path.join(REAL_CRDS, "crds", name)) as f:
            crd = yaml.safe_load(f)
        crd["file"] = name
        crds[(crd["spec"]["group"], crd["spec"]["names"]["kind"])] = crd
    installed = set()
    for name in sorted(os.listdir(os.path.join(REAL_CRDS, "objects"))):
        with open(os.path.join(REAL_CRDS, "objects", name)) as f:
            source = yaml.safe_load(f)
        group, _, version = source["apiVersion"].rpartition("/")
        crd = crds.get((group, source["kind"]))
        # Only objects of the storage version: without the CRD's conversion webhook (removed
        # here) another version's objects would be stored, and pruned, as the storage version.
        served = [v for v in (crd or {}).get("spec", {}).get("versions", [])
                  if v["name"] == version and v.get("served") and v.get("storage")]
        if not served:
            continue
        if crd["metadata"]["name"] not in installed:
            crd = copy.deepcopy(crd)
            crd.pop("file")
            crd["spec"].pop("conversion", None)
            for key in ("resourceVersion", "uid", "creationTimestamp", "generation"):
                crd["metadata"].pop(key, None)
            status, answer = client.request(
                "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                json.dumps(crd).encode(), {"Content-Type": "application/json"})
            if status not in (200, 201):
                print("skipped", name, "the CRD was refused:", answer[:200])
                continue
            installed.add(crd["metadata"]["name"])
        plural = crd["spec"]["names"]["plural"]
        base = "/apis/%s/%s/%s%s" % (group, version, "namespaces/default/"
                                     if crd["spec"]["scope"] == "Namespaced" else "", plural)
        for _ in range(100):
            if client.request("GET", base)[0] == 200:
                break
            time.sleep(0.2)
        object_name = "real-" + name[:-len(".yaml")]
        metadata = {"name": object_name}
        for key in ("labels", "annotations"):
            values = {k: v for k, v in (source["metadata"].get(key) or {}).items()
                      if k != LAST_APPLIED}
            if values:
                metadata[key] = values
        head = {"apiVersion": source["apiVersion"], "kind": source["kind"]}
        spec = source.get("spec") or {}
        steps = [apply("gitops", dict(head, metadata=metadata, spec=spec))]
        has_status = bool(served[0].get("subresources", {}).get("status") is not None)
        if source.get("status") and has_status:
            steps.append(apply("controller", dict(head, metadata={"name": object_name},
                                                  status=source["status"]), status=True))
        steps.append(merge({"metadata": {"labels": {"edited": "true"}}}, manager="kubectl-edit"))
        # The spec again without its first field the schema does not require.
        required = served[0]["schema"]["openAPIV3Schema"].get("properties", {}).get(
            "spec", {}).get("required", [])
        optional = [key for key in spec if key not in required]
        fewer = {k: v for k, v in spec.items() if not optional or k != optional[0]}
        steps.append(apply("gitops", dict(head, metadata=metadata, spec=fewer)))
        yield (object_name, source["apiVersion"], source["kind"], crds[(group, source["kind"])]["file"],
               has_status, steps, base)


def write(out, name, result):
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print("recorded", name, [s["code"] for s in result["steps"]])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kube-bin", required=True)
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "fieldmanager", "data"))
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--real-crds", action="store_true",
                        help="also the CRDs and objects of shared/fixtures/real-crds")
    parser.add_argument("--real-only", action="store_true", help="only those")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="fieldmanager-record-")
    server = RealServer(args.kube_bin, work)
    clients = server.start()
    try:
        admin = clients["admin"]
        status, answer = admin.request(
            "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            json.dumps(CRD).encode(), {"Content-Type": "application/json"})
        if status not in (200, 201):
            sys.exit("record: the CRD was refused: %s" % answer)
        for _ in range(100):  # until the resource is served
            if admin.request("GET", BASE)[0] == 200:
                break
            time.sleep(0.2)
        for name, steps in sequences().items():
            if (args.only and name not in args.only) or args.real_only:
                continue
            write(args.out, name, {"name": name, "apiVersion": API_VERSION, "kind": KIND,
                                   "schema": SCHEMA, "statusSubresource": True,
                                   "steps": record(admin, name, steps)})
        if args.real_crds or args.real_only:
            for name, api_version, kind, crd_file, has_status, steps, base in real_sequences(admin):
                if args.only and name not in args.only:
                    continue
                # The schema stays in shared/ (the test reads that version's from the CRD file).
                result = {"name": name, "apiVersion": api_version, "kind": kind,
                          "crdFile": "fixtures/real-crds/crds/" + crd_file,
                          "statusSubresource": has_status,
                          "steps": record(admin, name, steps, base)}
                if result["steps"][0]["code"] != 201:
                    print("skipped", name, "the object was refused:",
                          result["steps"][0]["answer"].get("message", "")[:200])
                    continue
                write(args.out, name, result)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
