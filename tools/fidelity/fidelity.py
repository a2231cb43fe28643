#!/usr/bin/env python3
"""The differential fidelity harness: one corpus of request scenarios replayed, in order, against a
fresh embedded cluster (`reconscope serve`) and a fresh kube-apiserver + etcd (no controllers), the
answers compared request by request after normalizing what must differ (normalize.py).

    fidelity.py --embedded RECONSCOPE --kube-bin DIR [--report FILE] [--results FILE]
                [--check BASELINE] [--write-baseline BASELINE] [--only NAME...]

Prints the fidelity figure (the share of requests whose normalized answers are identical), writes
the report (Markdown: a table per scenario) and, with --check, exits 1 when a request the baseline
lists as matching no longer matches. The corpus is scenarios/*.yaml (format in scenarios/README.md).
Standard library and PyYAML only.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time

import yaml

sys.dont_write_bytecode = True  # run from the source tree by ctest: leave nothing in it
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from normalize import Normalizer, differences  # noqa: E402
from servers import EmbeddedServer, RealServer  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "WATCH")
PATCH_TYPES = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
               "strategic": "application/strategic-merge-patch+json",
               "apply": "application/apply-patch+yaml"}
VAR = re.compile(r"\{\{(\w+)\}\}")


def load_corpus(only=None):
    scenarios = []
    for name in sorted(os.listdir(os.path.join(HERE, "scenarios"))):
        if name.endswith(".yaml"):
            with open(os.path.join(HERE, "scenarios", name)) as f:
                for scenario in yaml.safe_load(f) or []:
                    scenario["file"] = name
                    scenarios.append(scenario)
    seen = set()
    for scenario in scenarios:
        ids = [scenario["name"]] + ["%s/%s" % (scenario["name"], step.get("name"))
                                    for step in expand(scenario)
                                    if any(m in step for m in METHODS)]
        for i in ids:
            if i in seen or i.endswith("/None"):
                sys.exit("fidelity: %s twice or a request without a name" % i)
            seen.add(i)
    return [s for s in scenarios if not only or s["name"] in only]


SHARED = os.path.join(ROOT, "..", "shared")


def read_manifest(path):
    """A manifest's first document; `path` is relative to the repository, or under shared/ (the
    project folder beside it) when it starts with shared/."""
    full = os.path.join(SHARED, path[len("shared/"):]) if path.startswith("shared/") \
        else os.path.join(ROOT, path)
    with open(full) as f:
        return next(d for d in yaml.safe_load_all(f) if d)


def substitute(value, variables):
    if isinstance(value, str):
        whole = VAR.fullmatch(value)
        if whole and not isinstance(variables.get(whole.group(1), ""), str):
            return variables[whole.group(1)]  # a captured number or object, as is
        return VAR.sub(lambda m: str(variables.get(m.group(1), "<unset:%s>" % m.group(1))), value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def captured(body, dotted):
    value = body
    for part in dotted.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def parse_body(raw, watch):
    text = raw.decode("utf-8", errors="replace")
    if watch:
        events, decoder, i = [], json.JSONDecoder(), 0
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                return events
            try:
                event, i = decoder.raw_decode(text, i)
            except ValueError:
                events.append({"unparsed": text[i:]})
                return events
            events.append(event)
    try:
        return json.loads(text) if text.strip() else ""
    except ValueError:
        pass
    try:
        document = yaml.safe_load(text)
        if isinstance(document, dict):
            return {"yaml": document}
    except yaml.YAMLError:
        pass
    return {"text": text.strip()}


def expand(scenario):
    """The scenario's steps, its namespace's creation first when it names one."""
    steps = []
    if scenario.get("namespace"):
        steps.append({"name": "create-namespace", "POST": "/api/v1/namespaces",
                      "body": {"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": scenario["namespace"]}}})
    for step in scenario["steps"]:
        if "create_crd" in step:
            crd = read_manifest(step["create_crd"])
            steps.append({"name": step.get("name", "create-crd-" + crd["metadata"]["name"]),
                          "POST": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                          "body": crd})
            steps.append({"wait_established": crd["metadata"]["name"]})
        else:
            steps.append(step)
    return steps


class Replay:
    """One server's replay of the corpus: its answers, normalized in the order they came."""

    def __init__(self, server, clients, corpus, compact):
        self.server, self.clients, self.corpus, self.compact = server, clients, corpus, compact
        self.normalizer = Normalizer()
        self.answers = {}  # request id -> (method, path, status, normalized body)
        self.error = None

    def run(self):
        try:
            for scenario in self.corpus:
                self.scenario(scenario)
        except Exception as error:  # reported by the main thread
            self.error = error
            raise

    def scenario(self, scenario):
        variables = {"ns": scenario.get("namespace", "default")}
        for step in expand(scenario):
            if "sleep" in step:
                time.sleep(float(step["sleep"]))
            elif "wait_established" in step:
                self.wait_established(step["wait_established"])
            elif "ensure_crd" in step:
                self.ensure_crd(step["ensure_crd"])
            elif "compact" in step:
                self.compact(self.clients["admin"])
            else:
                self.request(scenario["name"], step, variables)

    def request(self, scenario, step, variables):
        method = next(m for m in METHODS if m in step)
        path = substitute(step[method], variables)
        headers = dict(substitute(step.get("headers", {}), variables))
        body = None
        if "raw" in step:
            body = substitute(step["raw"], variables).encode()
        elif "raw_size" in step:  # a valid JSON document of about that many bytes
            body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "huge"},
                               "data": {"x": "x" * int(step["raw_size"])}}).encode()
        elif "body" in step or "body_file" in step:
            document = step["body"] if "body" in step else read_manifest(step["body_file"])
            body = json.dumps(substitute(document, variables)).encode()
        if body is not None:
            content_type = PATCH_TYPES.get(step.get("type", "merge" if method == "PATCH" else ""),
                                           "application/json")
            headers.setdefault("Content-Type", step.get("content_type", content_type))
        watch = method == "WATCH"
        if watch:
            separator = "&" if "?" in path else "?"
            path += separator + "watch=1"
            if "timeoutSeconds=" not in path:
                path += "&timeoutSeconds=1"
        client = self.clients[step.get("as", "admin")]
        status, raw = client.request("GET" if watch else method, path, body, headers)
        parsed = parse_body(raw, watch)
        for name, dotted in (step.get("capture") or {}).items():
            value = captured(parsed, dotted)
            variables[name] = value if value is not None else "<uncaptured:%s>" % name
        status, normalized = self.normalizer.answer(path, status, parsed)
        self.answers["%s/%s" % (scenario, step["name"])] = (method, path, status, normalized)

    def ensure_crd(self, manifest):
        """Installs a CRD the embedded cluster may already carry (its own CustomApp); not compared."""
        crd = read_manifest(manifest)
        # Created as reconscope's client creates it (its User-Agent names the Update manager),
        # as the embedded cluster installs its own CustomApp CRD.
        self.clients["admin"].request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                      json.dumps(crd).encode(),
                                      {"Content-Type": "application/json",
                                       "User-Agent": "reconscope/fidelity"})
        self.wait_established(crd["metadata"]["name"])

    def wait_established(self, name):
        """Until the CRD is Established and served; a CRD that never is (one server refused it)
        is said on stderr, and the requests after it show what follows."""
        deadline = time.monotonic() + 20
        path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name
        while time.monotonic() < deadline:
            status, raw = self.clients["admin"].request("GET", path)
            if status == 200:
                conditions = json.loads(raw).get("status", {}).get("conditions") or []
                if any(c.get("type") == "Established" and c.get("status") == "True"
                       for c in conditions):
                    # Discovery (and so the new resource's paths) follows a moment later on
                    # kube-apiserver; the resource's list answering says it is served.
                    if self.served(json.loads(raw)):
                        return
            time.sleep(0.1)
        print("fidelity: CRD %s not served on %s after 20 s" % (name, self.server), file=sys.stderr)

    def served(self, crd):
        spec = crd["spec"]
        version = next(v["name"] for v in spec["versions"] if v.get("served"))
        status, _ = self.clients["admin"].request(
            "GET", "/apis/%s/%s/%s?limit=1" % (spec["group"], version, spec["names"]["plural"]))
        return status == 200


def compare(corpus, real, embedded):
    """Per scenario: a list of request results, in corpus order."""
    results = []
    for scenario in corpus:
        rows = []
        for step in expand(scenario):
            method = next((m for m in METHODS if m in step), None)
            if method is None:
                continue
            request_id = "%s/%s" % (scenario["name"], step["name"])
            r = real.answers.get(request_id)
            e = embedded.answers.get(request_id)
            if r is None or e is None:
                rows.append({"id": request_id, "same": False, "request": "%s %s" % (method, step[method]),
                             "diff": ["not run on %s" % ("real" if r is None else "embedded")]})
                continue
            diff = []
            if r[2] != e[2]:
                diff.append("HTTP status: %d (real) / %d (embedded)" % (r[2], e[2]))
            diff += differences(r[3], e[3])
            rows.append({"id": request_id, "same": not diff, "request": "%s %s" % (method, step[method]),
                         "status": [r[2], e[2]], "diff": diff,
                         "real": r[3], "embedded": e[3]})
        results.append({"scenario": scenario["name"], "file": scenario["file"],
                        "description": scenario.get("description", ""), "requests": rows})
    return results


def figure(results):
    rows = [row for s in results for row in s["requests"]]
    return sum(1 for row in rows if row["same"]), len(rows)


def md_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def md_code(text):
    """A code span (the normalized values hold <...> that Markdown would take for markup)."""
    text = md_cell(text).replace("`", "'")
    return "`%s`" % text


ERROR_CODES = (400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 500)


def report(results, release):
    same, total = figure(results)
    rows = [row for s in results for row in s["requests"]]
    lines = ["# Fidelity: the embedded cluster held against kube-apiserver", "",
             "Generated by `./dev fidelity` (`tools/fidelity/`, corpus in"
             " `tools/fidelity/scenarios/`): %d scenarios, %d requests replayed in order against a"
             " fresh `reconscope serve --no-demo` and a fresh kube-apiserver %s + etcd with no"
             " controllers (`cluster.py up --control-plane-only`, as envtest runs them). Answers"
             " are compared as JSON values (HTTP status, then the body: a Status's reason, message"
             " and details, or the object) after normalizing only what must differ: uids and"
             " resourceVersions (labelled per object by order of appearance), server-set"
             " timestamps (managedFields entries' times among them), continue tokens, generated names,"
             " the server's version,"
             " and two orders kube-apiserver itself varies from run to run (validation causes,"
             " discovery resources); `tools/fidelity/normalize.py` says how. Watches are compared"
             " as their event sequences. `fidelity.py --self-check real` (and `embedded`) replays"
             " against two servers of one kind: both match on every request, so each difference"
             " below is the servers', not the harness's. The embedded side runs what `reconscope"
             " serve` runs: its namespace controller, garbage collector and workload simulator"
             " (a Deployment's pods and status, a ResourceQuota's status), which the real side"
             " lacks; a few differences come from those rather than from the API server (a"
             " namespace gone after its deletion, a Deployment's or quota's status written"
             " between two requests)." % (len(results), total, release), "",
             "**Fidelity: %d of %d requests identical (%.1f %%).**" % (same, total,
                                                                       100.0 * same / max(total, 1)),
             "", "The requests that match are listed in `tools/fidelity/baseline.txt`; the ctest"
             " `fidelity` (real-cluster tier) fails when one of them stops matching. After a fix,"
             " refresh it with `./dev fidelity --write-baseline tools/fidelity/baseline.txt`.", ""]
    provoked = []
    for code in ERROR_CODES:
        n = sum(1 for row in rows if row.get("status", [0])[0] == code)
        provoked.append("%d: %s" % (code, "%d request%s" % (n, "s" if n > 1 else "") if n
                                    else "not provoked"))
    lines += ["Error answers of kube-apiserver in the corpus: " + "; ".join(provoked) + ". 410"
              " comes only from a resource served without the watch cache (the cache serves"
              " compacted revisions of every other), 500 only from a CRD whose conversion webhook"
              " is missing.", "",
              "| scenario | requests | identical | differ |", "|---|---:|---:|---:|"]
    for s in results:
        n = sum(1 for row in s["requests"] if row["same"])
        lines.append("| [%s](#%s) | %d | %d | %d |" % (s["scenario"], s["scenario"],
                                                       len(s["requests"]), n, len(s["requests"]) - n))
    lines += ["", "## Divergences", "", "Each differing request with its first difference"
              " (all of them in the scenario's table).", ""]
    for s in results:
        for row in s["requests"]:
            if not row["same"]:
                lines.append("- `%s`: %s" % (row["id"], md_code(row["diff"][0])))
    for s in results:
        lines += ["", "## %s" % s["scenario"], ""]
        if s["description"]:
            lines += [s["description"].strip(), ""]
        lines += ["| request | status (real / embedded) | same | what differs |", "|---|---|---|---|"]
        for row in s["requests"]:
            status = "%d / %d" % tuple(row["status"]) if "status" in row else "-"
            what = "<br>".join(md_code(d) for d in row["diff"][:6])
            if len(row["diff"]) > 6:
                what += "<br>(%d more)" % (len(row["diff"]) - 6)
            lines.append("| `%s` %s | %s | %s | %s |" % (row["id"].split("/", 1)[1],
                                                        md_code(row["request"]), status,
                                                        "same" if row["same"] else "**differs**",
                                                        what))
    return "\n".join(lines) + "\n"


def release():
    with open(os.path.join(ROOT, "tools", "kubefixture", "VERSION")) as f:
        return next(l.split("=", 1)[1].strip() for l in f if l.startswith("KUBE_VERSION="))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedded", help="the reconscope executable")
    parser.add_argument("--kube-bin", help="the control plane's bin directory")
    parser.add_argument("--report", help="write the Markdown report here")
    parser.add_argument("--results", help="write every normalized answer here (JSON)")
    parser.add_argument("--check", help="fail when a request this baseline lists differs")
    parser.add_argument("--write-baseline", help="write the ids of the identical requests here")
    parser.add_argument("--only", nargs="*", help="only these scenarios")
    parser.add_argument("--self-check", choices=("real", "embedded"),
                        help="replay against two servers of this kind instead: every request must"
                             " match, or the corpus or the normalization depends on timing")
    parser.add_argument("--shared", help="the project's shared/ folder (default: beside the"
                                         " repository)")
    args = parser.parse_args()
    if args.shared:
        global SHARED
        SHARED = os.path.abspath(args.shared)
    corpus = load_corpus(args.only)
    workdir = tempfile.mkdtemp(prefix="reconscope-fidelity-")

    def server(kind, name):
        if kind == "real":
            return RealServer(os.path.abspath(args.kube_bin), os.path.join(workdir, name))
        return EmbeddedServer(os.path.abspath(args.embedded), os.path.join(workdir, name))
    servers = [server(args.self_check or "embedded", "first"),
               server(args.self_check or "real", "second")]
    started = time.monotonic()
    try:
        replays = [Replay(server.name, server.start(), corpus, server.compact) for server in servers]
        threads = [threading.Thread(target=r.run) for r in replays]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    for r in replays:
        if r.error:
            sys.exit("fidelity: the replay on %s failed: %r" % (r.server, r.error))
    embedded, real = replays
    results = compare(corpus, real, embedded)
    same, total = figure(results)
    print("fidelity: %d of %d requests identical (%.1f %%) in %d scenarios, %.0f s"
          % (same, total, 100.0 * same / max(total, 1), len(results), time.monotonic() - started))
    if args.report:
        with open(args.report, "w") as f:
            f.write(report(results, release()))
    if args.results:
        with open(args.results, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    matching = [row["id"] for s in results for row in s["requests"] if row["same"]]
    if args.write_baseline:
        with open(args.write_baseline, "w") as f:
            f.write("# Requests of tools/fidelity/scenarios whose normalized answers are identical on"
                    " both servers\n# (fidelity.py --write-baseline); the test fails when one stops"
                    " matching.\n")
            f.write("".join(i + "\n" for i in matching))
    if args.check:
        with open(args.check) as f:
            expected = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        rows = {row["id"]: row for s in results for row in s["requests"]}
        replayed = {s["scenario"] for s in results}
        lost = [i for i in expected if i.split("/")[0] in replayed
                and (i not in rows or not rows[i]["same"])]
        gained = sorted(set(matching) - set(expected))
        for i in lost:
            print("FAIL %s no longer matches: %s" % (i, "; ".join(rows[i]["diff"][:4]) if i in rows
                                                    else "not in the corpus"))
        if gained:
            print("%d requests match that the baseline does not list (refresh it with"
                  " --write-baseline): %s" % (len(gained), ", ".join(gained)))
        if lost:
            sys.exit(1)


if __name__ == "__main__":
    main()
