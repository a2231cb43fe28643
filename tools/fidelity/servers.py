"""The two servers the corpus is replayed against, and plain HTTPS to them.

- `EmbeddedServer`: `reconscope serve --no-demo` on a free loopback port, kubeconfig in a work
  directory (`kubeconfig` once started); stopped with SIGTERM.
- `RealServer`: tools/kubefixture/cluster.py `up --control-plane-only` (etcd + kube-apiserver, as
  envtest runs them) in a state directory of its own (`kubeconfig` once started); stopped with
  `down`.
- `Client`: one identity of a kubeconfig (client certificate or bearer token), or none at all;
  `request` answers (status, body bytes) and never raises for an HTTP error status.
"""

import base64
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER_TOOL = os.path.join(HERE, "..", "kubefixture", "cluster.py")
# The embedded cluster's history window: the events it keeps for watches and Exact reads
# (controller/cluster/registry/store.h).
HISTORY_WINDOW = 10000


class Client:
    def __init__(self, server, ca_file, cert=None, key=None, token=None):
        url = urllib.parse.urlparse(server)
        self.host, self.port = url.hostname, url.port
        self.context = ssl.create_default_context(cafile=ca_file)
        if cert:
            self.context.load_cert_chain(cert, key)
        self.token = token

    def request(self, method, path, body=None, headers=None, timeout=60.0):
        with self.session(timeout) as session:
            return session.request(method, path, body, headers)

    @contextlib.contextmanager
    def session(self, timeout=60.0):
        """One kept-alive connection for many requests."""
        session = Session(self, timeout)
        try:
            yield session
        finally:
            session.connection.close()


class Session:
    def __init__(self, client, timeout):
        self.client = client
        self.connection = http.client.HTTPSConnection(client.host, client.port,
                                                      context=client.context, timeout=timeout)

    def request(self, method, path, body=None, headers=None):
        all_headers = {"Accept": "application/json"}
        if self.client.token:
            all_headers["Authorization"] = "Bearer " + self.client.token
        all_headers.update(headers or {})
        self.connection.request(method, path, body=body, headers=all_headers)
        response = self.connection.getresponse()
        return response.status, response.read()


def clients_from_kubeconfig(path, workdir):
    """Clients named by role: admin, token, viewer (from the contexts' suffixes), anonymous (no
    credentials) and badtoken (a bearer token no server issued)."""
    with open(path) as f:
        config = yaml.safe_load(f)
    cluster = config["clusters"][0]["cluster"]
    server = cluster["server"]
    os.makedirs(workdir, exist_ok=True)

    def written(name, data):
        target = os.path.join(workdir, name)
        with open(target, "wb") as f:
            f.write(base64.b64decode(data))
        return target
    ca = written("ca.crt", cluster["certificate-authority-data"])
    users = {u["name"]: u["user"] for u in config["users"]}
    clients = {}
    for context in config["contexts"]:
        name = context["name"]
        role = "token" if name.endswith("-token") else "viewer" if name.endswith("-viewer") else "admin"
        user = users[context["context"]["user"]]
        if "token" in user:
            clients[role] = Client(server, ca, token=user["token"])
        else:
            clients[role] = Client(server, ca, written(role + ".crt", user["client-certificate-data"]),
                                   written(role + ".key", user["client-key-data"]))
    clients["anonymous"] = Client(server, ca)
    clients["badtoken"] = Client(server, ca, token="not-a-token-either-server-issued")
    return clients


class EmbeddedServer:
    name = "embedded"

    def __init__(self, binary, workdir):
        self.binary, self.workdir = binary, workdir
        self.proc = None

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        kubeconfig = self.kubeconfig = os.path.join(self.workdir, "kubeconfig")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig,
             "--no-demo"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if re.search(r"serving at https://", line):
                # Keep draining its output so that it never blocks on a full pipe.
                threading.Thread(target=self.proc.stdout.read, daemon=True).start()
                for _ in range(100):
                    if os.path.exists(kubeconfig):
                        return clients_from_kubeconfig(kubeconfig, os.path.join(self.workdir, "pki"))
                    time.sleep(0.05)
        self.stop()
        sys.exit("fidelity: reconscope serve did not come up")

    def compact(self, client):
        """The embedded cluster keeps the last HISTORY_WINDOW events and no more (there is no
        compaction to ask it for): that many writes to a ConfigMap of its own push every earlier
        resourceVersion out, as etcd's compaction does."""
        name = "/api/v1/namespaces/default/configmaps/fidelity-compaction"
        client.request("POST", "/api/v1/namespaces/default/configmaps", json.dumps(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fidelity-compaction"}}
        ).encode(), {"Content-Type": "application/json"})
        with client.session() as session:
            for i in range(HISTORY_WINDOW + 1):
                session.request("PATCH", name, json.dumps({"data": {"n": str(i)}}).encode(),
                                {"Content-Type": "application/merge-patch+json"})

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class RealServer:
    name = "real"

    def __init__(self, kube_bin, workdir):
        self.kube_bin, self.workdir = kube_bin, workdir
        self.state = os.path.join(workdir, "state")

    def start(self):
        os.makedirs(self.workdir, exist_ok=True)
        result = subprocess.run(
            [sys.executable, CLUSTER_TOOL, "up", "--replace", "--control-plane-only",
             "--viewer-name", "viewer", "--bin", self.kube_bin, "--state", self.state],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            sys.exit("fidelity: the control plane did not come up:\n" + result.stderr)
        self.kubeconfig = result.stdout.strip()
        return clients_from_kubeconfig(self.kubeconfig, os.path.join(self.workdir, "pki"))

    def compact(self, client):
        """etcd compacted at its current revision."""
        subprocess.run([sys.executable, CLUSTER_TOOL, "compact", "--state", self.state],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run([sys.executable, CLUSTER_TOOL, "down", "--state", self.state],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def on_both_servers(embedded_binary, kube_bin, prefix, run_side):
    """run_side(server, out, workdir) for a fresh kube-apiserver + etcd and a fresh `reconscope
    serve` at once, each in a thread and a work directory of its own (removed after); returns
    {"real": out, "embedded": out}. The server is started and stopped by run_side, which records
    what went wrong in out["error"] rather than raising."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    sides = {"real": RealServer(os.path.abspath(kube_bin), os.path.join(workdir, "real")),
             "embedded": EmbeddedServer(os.path.abspath(embedded_binary),
                                        os.path.join(workdir, "embedded"))}
    results = {name: {} for name in sides}
    try:
        threads = []
        for name, server in sides.items():
            side_dir = os.path.join(workdir, name + "-work")
            os.makedirs(side_dir)
            threads.append(threading.Thread(target=run_side,
                                            args=(server, results[name], side_dir)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return results
