#!/usr/bin/env python3
"""The real control plane as local processes: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler and kwok (fake nodes), on loopback, from the binaries ./dev builds.

    cluster.py up   --bin DIR [--state DIR] [--kubeconfig-out FILE] [--nodes N] [--replace]
                    [--control-plane-only] [--viewer-name CN]
    cluster.py down [--state DIR]
    cluster.py restart-apiserver [--state DIR]   kill -9 kube-apiserver, start it again, wait ready
    cluster.py compact [--state DIR]             compact etcd at its current revision
    cluster.py status [--state DIR]

Contract:
- `up` returns once /readyz answers, the default ServiceAccount exists and every kwok node is
  Ready; it writes a kubeconfig shaped like kind's (context kind-reconscope, embedded certificate
  data) with two more contexts: a bearer token (kind-reconscope-token) and a viewer bound to the
  `view` ClusterRole (kind-reconscope-viewer).
- `up --control-plane-only` starts etcd and kube-apiserver alone, as envtest runs them: no
  controller answers behind the client's back, so what the server says is deterministic. It
  returns once /readyz answers; there are no nodes, no default ServiceAccount (so the ServiceAccount
  admission plugin, which would reject every pod for the missing account, is off, as envtest users
  turn it off) and the `view` ClusterRole the viewer is bound to stays empty (no aggregation).
- `--viewer-name` is the viewer certificate's common name (default reconscope-viewer); the
  fidelity harness names it as `reconscope serve` does, so that answers quoting the user compare.
- Everything lives in the state directory (PKI, etcd data, logs, pids). `down` stops every process
  it started (SIGTERM, then SIGKILL) and removes that directory; it fails, naming what is left, if
  a process or the directory survives.
- Only the Python standard library and the openssl command are used.
"""

import argparse
import base64
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_STATE = os.path.join(tempfile.gettempdir(), "reconscope-cluster-%d" % os.getuid())
CONTEXT = "kind-reconscope"
ADMIN_TOKEN_USER = "reconscope-token"
VIEWER_GROUP = "reconscope:viewers"
# The resource whose watch cache is off, so that an etcd compaction reaches watchers as 410 Gone
# (the watch cache hides compaction from every other resource).
UNCACHED_RESOURCE = "uncachedwidgets.e2e.reconscope.dev"
CONTROLLERS = ",".join([
    "garbage-collector-controller",
    "namespace-controller",
    "deployment-controller",
    "replicaset-controller",
    "resourcequota-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    # Lifts the not-ready taint admission puts on a new Node once kwok reports it Ready (and
    # taints a node whose kwok heartbeats stop).
    "node-lifecycle-controller",
    # Fills the aggregated ClusterRoles (view, edit, admin) that the viewer is bound to.
    "clusterrole-aggregation-controller",
])


def fail(message):
    print("cluster: " + message, file=sys.stderr)
    sys.exit(1)


def log(message):
    print("== " + message, file=sys.stderr, flush=True)


def ephemeral_ports():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(part) for part in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def free_ports(names):
    """Free loopback ports, one per name, all outside the kernel's ephemeral range, which every
    bind to port 0 and every outgoing connection draws from: while kube-apiserver is down
    (restart-apiserver), a test's server listening on port 0, or a client's connection, could be
    given its port, and the restarted kube-apiserver would fail to bind it."""
    low, high = ephemeral_ports()
    candidates = [port for port in range(10000, 65536) if not low <= port <= high]
    ports = {}
    for port in random.sample(candidates, min(len(candidates), 500)):
        if len(ports) == len(names):
            break
        if port in ports.values():
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        ports[names[len(ports)]] = port
    if len(ports) != len(names):
        fail("no %d free loopback ports outside the ephemeral range %d-%d" % (len(names), low, high))
    return ports


def openssl(*args, cwd):
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        fail("openssl %s failed: %s" % (args[0], result.stderr.strip()))


def make_pki(pki, viewer_name="reconscope-viewer"):
    """A CA, the apiserver's serving certificate, client certificates and the service-account key."""
    os.makedirs(pki)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj",
            "/CN=reconscope-e2e-ca", "-keyout", "ca.key", "-out", "ca.crt", cwd=pki)
    with open(os.path.join(pki, "serving.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,"
                "DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1\n"
                "extendedKeyUsage=serverAuth\n")
    with open(os.path.join(pki, "client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")

    def issue(name, subject, ext):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout",
                name + ".key", "-out", name + ".csr", cwd=pki)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "30", "-extfile", ext, "-out", name + ".crt", cwd=pki)

    issue("apiserver", "/CN=kube-apiserver", "serving.ext")
    issue("admin", "/O=system:masters/CN=kubernetes-admin", "client.ext")
    issue("viewer", "/O=%s/CN=%s" % (VIEWER_GROUP, viewer_name), "client.ext")
    issue("controller-manager", "/CN=system:kube-controller-manager", "client.ext")
    issue("scheduler", "/CN=system:kube-scheduler", "client.ext")
    openssl("genrsa", "-out", "sa.key", "2048", cwd=pki)
    openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=pki)
    tokens = {"admin": base64.b32encode(os.urandom(20)).decode().lower(),
              "viewer": base64.b32encode(os.urandom(20)).decode().lower()}
    with open(os.path.join(pki, "tokens.csv"), "w") as f:
        f.write('%s,%s,uid-token,"system:masters"\n' % (tokens["admin"], ADMIN_TOKEN_USER))
        f.write('%s,reconscope-viewer-token,uid-viewer-token,"%s"\n' % (tokens["viewer"], VIEWER_GROUP))
    return tokens


def b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def kubeconfig_text(pki, server, tokens, users):
    """A kubeconfig like kind's; `users` names which contexts to write (admin, token, viewer...)."""
    ca = b64file(os.path.join(pki, "ca.crt"))
    lines = ["apiVersion: v1", "kind: Config", "preferences: {}",
             "current-context: " + CONTEXT, "clusters:",
             "- name: " + CONTEXT, "  cluster:",
             "    certificate-authority-data: " + ca, "    server: " + server,
             "contexts:"]
    names = {"admin": CONTEXT, "token": CONTEXT + "-token", "viewer": CONTEXT + "-viewer",
             "viewer-token": CONTEXT + "-viewer-token",
             "controller-manager": "controller-manager", "scheduler": "scheduler"}
    for user in users:
        lines += ["- name: " + names[user], "  context:", "    cluster: " + CONTEXT,
                  "    user: " + names[user]]
    lines.append("users:")
    for user in users:
        lines += ["- name: " + names[user], "  user:"]
        if user in ("token", "viewer-token"):
            lines.append("    token: " + tokens["admin" if user == "token" else "viewer"])
        else:
            lines += ["    client-certificate-data: " + b64file(os.path.join(pki, user + ".crt")),
                      "    client-key-data: " + b64file(os.path.join(pki, user + ".key"))]
    return "\n".join(lines) + "\n"


def write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


class State:
    """What `up` started, kept in STATE/state.json for the other verbs."""

    def __init__(self, directory):
        self.dir = directory
        self.path = os.path.join(directory, "state.json")

    def load(self):
        try:
            with open(self.path) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def save(self, data):
        with open(self.path + ".tmp", "w") as f:
            json.dump(data, f, indent=1)
        os.replace(self.path + ".tmp", self.path)


def start(state, data, name, argv):
    logf = open(os.path.join(state.dir, "logs", name + ".log"), "ab")
    # A session of its own: `down` signals the whole group, and a Ctrl-C in the shell that ran
    # `up` does not reach the cluster.
    proc = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True, cwd=state.dir)
    data["processes"][name] = {"pid": proc.pid, "argv": argv}
    state.save(data)
    return proc


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie of ours has exited; reap it so it no longer counts.
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        try:
            with open("/proc/%d/stat" % pid) as f:
                return f.read().split(") ")[-1].split()[0] != "Z"
        except OSError:
            return False


def stop_pid(pid, grace=10.0):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 5.0)
        while time.monotonic() < deadline:
            if not alive(pid):
                return
            time.sleep(0.05)


def tail(state, name, lines=25):
    # Without the flag dump each component starts with: it is never why one stopped.
    try:
        with open(os.path.join(state.dir, "logs", name + ".log"), errors="replace") as f:
            return "".join([line for line in f if "flags.go" not in line][-lines:])
    except OSError:
        return ""


def https_context(pki):
    context = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
    context.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
    return context


def api(data, path, method="GET", body=None, timeout=5.0):
    request = urllib.request.Request(data["server"] + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, context=https_context(data["pki"]), timeout=timeout) as r:
        return r.status, r.read()


def wait_for(what, check, timeout, state=None, log_name=None, proc=None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            fail("%s exited with %d while waiting for %s:\n%s"
                 % (log_name, proc.returncode, what, tail(state, log_name)))
        try:
            if check():
                return
        except (OSError, urllib.error.URLError, ssl.SSLError, ValueError) as error:
            last = error
        time.sleep(0.1)
    extra = ("\n" + tail(state, log_name)) if log_name else ""
    fail("timed out after %.0f s waiting for %s (%s)%s" % (timeout, what, last, extra))


def readyz(data):
    try:
        status, _ = api(data, "/readyz", timeout=2.0)
        return status == 200
    except urllib.error.HTTPError:
        return False


def apiserver_argv(binaries, data, control_plane_only=False):
    pki = data["pki"]
    extra = ["--disable-admission-plugins", "ServiceAccount"] if control_plane_only else []
    return [os.path.join(binaries, "kube-apiserver"),
            "--etcd-servers", "http://127.0.0.1:%d" % data["ports"]["etcd"],
            "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
            "--secure-port", str(data["ports"]["apiserver"]),
            "--cert-dir", os.path.join(data["dir"], "apiserver-certs"),
            "--tls-cert-file", os.path.join(pki, "apiserver.crt"),
            "--tls-private-key-file", os.path.join(pki, "apiserver.key"),
            "--client-ca-file", os.path.join(pki, "ca.crt"),
            "--token-auth-file", os.path.join(pki, "tokens.csv"),
            "--authorization-mode", "Node,RBAC",
            "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file", os.path.join(pki, "sa.pub"),
            "--service-account-signing-key-file", os.path.join(pki, "sa.key"),
            "--service-cluster-ip-range", "10.96.0.0/16",
            "--allow-privileged=true",
            "--watch-cache-sizes", UNCACHED_RESOURCE + "#0",
            "--profiling=false", "--v=1"] + extra


def cmd_up(args):
    binaries = os.path.abspath(args.bin)
    needed = ("etcd", "kube-apiserver") if args.control_plane_only else (
        "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "kubectl")
    for name in needed:
        if not os.access(os.path.join(binaries, name), os.X_OK):
            fail("%s not found in %s (./dev builds the control plane)" % (name, binaries))
    state = State(os.path.abspath(args.state))
    previous = state.load()
    if previous and any(alive(p["pid"]) for p in previous["processes"].values()):
        if not args.replace:
            fail("a cluster is already running from %s (cluster.py down first)" % state.dir)
        log("stopping the cluster a previous run left in %s" % state.dir)
        cmd_down(args)
    if os.path.exists(state.dir):
        shutil.rmtree(state.dir)
    started = time.monotonic()
    os.makedirs(os.path.join(state.dir, "logs"))
    pki = os.path.join(state.dir, "pki")
    tokens = make_pki(pki, args.viewer_name)
    ports = free_ports(("etcd", "etcd-peer", "apiserver", "controller-manager", "scheduler", "kwok"))
    data = {"dir": state.dir, "pki": pki, "ports": ports, "bin": binaries, "processes": {},
            "server": "https://127.0.0.1:%d" % ports["apiserver"], "tokens": tokens}
    state.save(data)
    try:
        bring_up(state, data, binaries, tokens, args)
    except SystemExit:
        log("start-up failed: stopping what was started (logs kept in %s)" % state.dir)
        for entry in data["processes"].values():
            stop_pid(entry["pid"])
        raise
    log("control plane ready in %.1f s at %s" % (time.monotonic() - started, data["server"]))
    print(data["kubeconfig"])


def bring_up(state, data, binaries, tokens, args):
    pki, ports = data["pki"], data["ports"]
    for user in ("controller-manager", "scheduler"):
        write_private(os.path.join(state.dir, user + ".kubeconfig"),
                      kubeconfig_text(pki, data["server"], tokens, [user]).replace(
                          "current-context: " + CONTEXT, "current-context: " + user))
    admin_kubeconfig = os.path.join(state.dir, "admin.kubeconfig")
    write_private(admin_kubeconfig, kubeconfig_text(pki, data["server"], tokens, ["admin"]))
    etcd_url = "http://127.0.0.1:%d" % ports["etcd"]
    etcd = start(state, data, "etcd", [
        os.path.join(binaries, "etcd"), "--data-dir", os.path.join(state.dir, "etcd"),
        "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
        "--listen-peer-urls", "http://127.0.0.1:%d" % ports["etcd-peer"],
        "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % ports["etcd-peer"],
        "--initial-cluster", "default=http://127.0.0.1:%d" % ports["etcd-peer"],
        "--unsafe-no-fsync", "--log-level", "warn", "--quota-backend-bytes", str(4 << 30)])

    def etcd_health():
        with urllib.request.urlopen(etcd_url + "/health", timeout=2) as r:
            return json.loads(r.read()).get("health") == "true"
    wait_for("etcd", etcd_health, 30, state, "etcd", etcd)
    apiserver = start(state, data, "kube-apiserver",
                      apiserver_argv(binaries, data, args.control_plane_only))
    wait_for("kube-apiserver /readyz", lambda: readyz(data), 90, state, "kube-apiserver", apiserver)
    if args.control_plane_only:
        bind_viewers(data)
        write_kubeconfig(state, data, tokens, args)
        return
    def component(binary, user):
        """The flags kube-controller-manager and kube-scheduler share: their own kubeconfig for
        the API and for delegated authn/authz, a loopback port, no leader election."""
        kubeconfig = os.path.join(state.dir, user + ".kubeconfig")
        return [os.path.join(binaries, binary), "--kubeconfig", kubeconfig,
                "--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig,
                "--bind-address", "127.0.0.1", "--secure-port", str(ports[user]),
                "--leader-elect=false", "--profiling=false", "--v=1"]
    kcm = start(state, data, "kube-controller-manager", component(
        "kube-controller-manager", "controller-manager") + [
        "--controllers", CONTROLLERS,
        "--service-account-private-key-file", os.path.join(pki, "sa.key"),
        "--root-ca-file", os.path.join(pki, "ca.crt"),
        "--cluster-signing-cert-file", os.path.join(pki, "ca.crt"),
        "--cluster-signing-key-file", os.path.join(pki, "ca.key"),
        # Each controller under its own ServiceAccount and bootstrap role, as kubeadm and kind run it.
        "--use-service-account-credentials=true",
        "--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10",
        "--resource-quota-sync-period=10s"])
    scheduler = start(state, data, "kube-scheduler", component("kube-scheduler", "scheduler"))
    kwok = start(state, data, "kwok", [
        os.path.join(binaries, "kwok"), "--kubeconfig", admin_kubeconfig,
        "--config", os.path.join(HERE, "kwok-stages.yaml"), "--manage-all-nodes",
        "--server-address", "127.0.0.1:%d" % ports["kwok"], "--node-lease-duration-seconds", "40",
        "--node-ip", "10.244.0.1", "--cidr", "10.244.0.0/16"])
    kubectl = [os.path.join(binaries, "kubectl"), "--kubeconfig", admin_kubeconfig]

    def run(*argv, stdin=None):
        result = subprocess.run(kubectl + list(argv), input=stdin, capture_output=True, text=True)
        if result.returncode != 0:
            fail("kubectl %s: %s" % (" ".join(argv), result.stderr.strip()))
        return result.stdout
    bind_viewers(data)
    nodes = "".join(NODE % {"name": "kwok-node-%d" % i} for i in range(args.nodes))
    run("apply", "-f", "-", stdin=nodes)

    def default_service_account():
        try:
            status, _ = api(data, "/api/v1/namespaces/default/serviceaccounts/default")
            return status == 200
        except urllib.error.HTTPError:
            return False
    wait_for("the default ServiceAccount", default_service_account, 60, state,
             "kube-controller-manager", kcm)

    def nodes_ready():
        _, body = api(data, "/api/v1/nodes")
        items = json.loads(body)["items"]
        ready = [n for n in items for c in n.get("status", {}).get("conditions", [])
                 if c["type"] == "Ready" and c["status"] == "True"
                 and not n.get("spec", {}).get("taints")]
        return len(ready) == args.nodes
    # Ready, and untainted: the node-lifecycle controller has lifted the not-ready taint.
    wait_for("%d kwok nodes Ready" % args.nodes, nodes_ready, 90, state, "kwok", kwok)
    for name, proc in (("kube-scheduler", scheduler), ("etcd", etcd)):
        if proc.poll() is not None:
            fail("%s exited:\n%s" % (name, tail(state, name)))
    write_kubeconfig(state, data, tokens, args)


def bind_viewers(data):
    """The viewer group bound to the `view` ClusterRole."""
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "reconscope-viewers"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                      "name": VIEWER_GROUP}]}
    try:
        api(data, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "POST", binding)
    except urllib.error.HTTPError as error:
        fail("binding the viewers to `view`: %d %s"
             % (error.code, error.read().decode(errors="replace")))


def write_kubeconfig(state, data, tokens, args):
    pki = data["pki"]
    kubeconfig = os.path.join(state.dir, "kubeconfig")
    text = kubeconfig_text(pki, data["server"], tokens, ["admin", "token", "viewer"])
    write_private(kubeconfig, text)
    data["kubeconfig"] = kubeconfig
    if args.kubeconfig_out:
        write_private(os.path.abspath(args.kubeconfig_out), text)
        data["kubeconfig"] = os.path.abspath(args.kubeconfig_out)
    state.save(data)


NODE = """---
apiVersion: v1
kind: Node
metadata:
  name: %(name)s
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: %(name)s
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
"""


def loaded(args):
    state = State(os.path.abspath(args.state))
    data = state.load()
    if data is None:
        fail("no cluster in %s (cluster.py up first)" % state.dir)
    return state, data


def cmd_down(args):
    state = State(os.path.abspath(args.state))
    data = state.load()
    if data is None and not os.path.exists(state.dir):
        log("no cluster in %s: nothing to stop" % state.dir)
        return
    left = []
    if data:
        # The reverse of start-up: clients first, etcd last.
        for name, entry in reversed(list(data["processes"].items())):
            stop_pid(entry["pid"])
            if alive(entry["pid"]):
                left.append("%s (pid %d)" % (name, entry["pid"]))
    shutil.rmtree(state.dir, ignore_errors=True)
    if os.path.exists(state.dir):
        left.append("directory " + state.dir)
    if left:
        fail("left behind: " + ", ".join(left))
    log("control plane stopped, %s removed" % state.dir)


def wait_port_free(port, timeout):
    """Waits until 127.0.0.1:port can be bound again (as Go binds it: SO_REUSEADDR). A process
    killed with -9 is a zombie (alive() says gone) as soon as its main thread exits, while its
    other threads, and the listening socket they share, may last a little longer."""
    deadline = time.monotonic() + timeout
    while True:
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("port %d still in use %.0f s after kube-apiserver was killed"
                                 % (port, timeout))
            time.sleep(0.05)
        finally:
            probe.close()


def cmd_restart_apiserver(args):
    state, data = loaded(args)
    entry = data["processes"]["kube-apiserver"]
    os.killpg(entry["pid"], signal.SIGKILL)
    while alive(entry["pid"]):
        time.sleep(0.02)
    wait_port_free(data["ports"]["apiserver"], 30)
    started = time.monotonic()
    proc = start(state, data, "kube-apiserver", entry["argv"])
    wait_for("kube-apiserver /readyz", lambda: readyz(data), 90, state, "kube-apiserver", proc)
    log("kube-apiserver restarted in %.1f s" % (time.monotonic() - started))


def etcd_post(data, path, body):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (data["ports"]["etcd"], path),
                                     data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def cmd_compact(args):
    _, data = loaded(args)
    # etcd's gRPC gateway: a range over one key gives the store's current revision.
    header = etcd_post(data, "/v3/kv/range", {"key": base64.b64encode(b"/").decode()})["header"]
    revision = int(header["revision"])
    etcd_post(data, "/v3/kv/compaction", {"revision": revision, "physical": True})
    print(revision)


def cmd_status(args):
    _, data = loaded(args)
    for name, entry in data["processes"].items():
        print("%-24s pid %-7d %s" % (name, entry["pid"], "running" if alive(entry["pid"]) else "exited"))
    print("server     " + data["server"])
    print("kubeconfig " + data.get("kubeconfig", "(not written: start-up did not finish)"))


def main():
    parser = argparse.ArgumentParser(prog="cluster.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    up = sub.add_parser("up")
    up.add_argument("--bin", required=True, help="directory of the built binaries")
    up.add_argument("--kubeconfig-out", help="also write the kubeconfig here")
    up.add_argument("--nodes", type=int, default=3, help="fake nodes (default 3)")
    up.add_argument("--control-plane-only", action="store_true",
                    help="etcd and kube-apiserver alone, as envtest runs them")
    up.add_argument("--viewer-name", default="reconscope-viewer",
                    help="the viewer certificate's common name (default reconscope-viewer)")
    up.add_argument("--replace", action="store_true",
                    help="stop a cluster still running from the same state directory first")
    for verb in ("down", "restart-apiserver", "compact", "status"):
        sub.add_parser(verb)
    for p in sub.choices.values():
        p.add_argument("--state", default=os.environ.get("RECONSCOPE_CLUSTER_STATE", DEFAULT_STATE),
                       help="state directory (default %s)" % DEFAULT_STATE)
    args = parser.parse_args()
    {"up": cmd_up, "down": cmd_down, "restart-apiserver": cmd_restart_apiserver,
     "compact": cmd_compact, "status": cmd_status}[args.verb](args)


if __name__ == "__main__":
    main()
