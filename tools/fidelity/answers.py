#!/usr/bin/env python3
"""Writes kube-apiserver's answers to some requests of the corpus as test cases: for each request
id, the request, the writes before it in its scenario that the real server accepted (the creation
of its namespace first), and the real server's status and normalized answer, from a `fidelity.py --results` file.
tests/cluster/data/builtinvalidation/answers.json is made this way:

    python3 tools/fidelity/answers.py /tmp/r.json ID... > tests/cluster/data/builtinvalidation/answers.json

Requests whose path or body uses a captured value ({{rv}}) are left out of a setup.
"""
import json
import sys

import fidelity

TYPES = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
         "strategic": "application/strategic-merge-patch+json"}
WRITES = ("POST", "PUT", "PATCH", "DELETE")


def request_of(step, namespace):
    method = next(m for m in fidelity.METHODS if m in step)
    out = {"method": method, "path": step[method].replace("{{ns}}", namespace)}
    if "raw_size" in step:
        out["rawSize"] = int(step["raw_size"])
    elif "body" in step:
        out["body"] = json.dumps(step["body"], separators=(",", ":")).replace("{{ns}}", namespace)
    out["contentType"] = TYPES.get(step.get("type", "merge" if method == "PATCH" else ""),
                                   "application/json")
    return out


def main():
    real = {}
    for scenario in json.load(open(sys.argv[1])):
        for answer in scenario["requests"]:
            real[answer["id"]] = answer
    corpus = {s["name"]: s for s in fidelity.load_corpus()}
    cases = []
    for rid in sys.argv[2:]:
        name, step_name = rid.split("/", 1)
        scenario = corpus[name]
        namespace = scenario.get("namespace", "default")
        setup = []
        for step in fidelity.expand(scenario):
            if step.get("name") == step_name:
                request = request_of(step, namespace)
                break
            earlier = real.get("%s/%s" % (name, step.get("name")))
            if not any(m in step for m in WRITES) or not earlier or earlier["status"][0] >= 300:
                continue
            write = request_of(step, namespace)
            if "{{" not in write["path"] + write.get("body", ""):
                setup.append(write)
        cases.append({"id": rid, "setup": setup, "request": request,
                      "status": real[rid]["status"][0], "expected": real[rid]["real"]})
    json.dump(cases, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


main()
