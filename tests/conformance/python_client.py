#!/usr/bin/python3
"""Python's kubernetes client (Debian python3-kubernetes) against `reconscope serve`.

List, watch resumed from a resourceVersion, status patch, and a 409 on a stale replace: the checks
issue 3 asks of a second real client. Exits non-zero on the first failure; prints "N passed, 0 failed".
"""
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

GROUP, VERSION, PLURAL = "infrastructure.internal.net", "v1", "customapps"


def start_server(binary, workdir):
    kubeconfig = os.path.join(workdir, "kubeconfig.yaml")
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig, "--no-demo"],
        stdout=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if re.search(r"serving at https://", line) and os.path.exists(kubeconfig):
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, kubeconfig
    proc.kill()
    raise SystemExit("reconscope serve did not come up")


def app(name, replicas=1):
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "CustomApp",
            "metadata": {"name": name, "labels": {"suite": "python"}},
            "spec": {"image": "nginx:1.27", "replicas": replicas}}


def main():
    binary = sys.argv[1]
    passed = 0
    with tempfile.TemporaryDirectory() as workdir:
        proc, kubeconfig = start_server(binary, workdir)
        try:
            api_client = config.new_client_from_config(config_file=kubeconfig)
            api = client.CustomObjectsApi(api_client)

            # create + list
            for i in range(3):
                api.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, app(f"py-{i}"))
            listed = api.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL,
                                                       label_selector="suite=python")
            names = [item["metadata"]["name"] for item in listed["items"]]
            assert names == ["py-0", "py-1", "py-2"], names
            list_rv = listed["metadata"]["resourceVersion"]
            passed += 1

            # status patch: spec and generation untouched
            before = api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py-0")
            api.patch_namespaced_custom_object_status(
                GROUP, VERSION, "default", PLURAL, "py-0",
                {"status": {"observedGeneration": 1, "replicas": 1}, "spec": {"replicas": 50}})
            after = api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py-0")
            assert after["spec"] == before["spec"], after["spec"]
            assert after["metadata"]["generation"] == before["metadata"]["generation"]
            assert after["status"]["observedGeneration"] == 1
            passed += 1

            # watch resumed from the list's resourceVersion: only the changes after it, in order
            api.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py-1",
                                               {"spec": {"replicas": 2}})
            seen = []
            w = watch.Watch()
            for event in w.stream(api.list_namespaced_custom_object, GROUP, VERSION, "default",
                                  PLURAL, resource_version=list_rv, timeout_seconds=5):
                seen.append((event["type"], event["object"]["metadata"]["name"]))
                if len(seen) == 2:
                    w.stop()
            assert seen == [("MODIFIED", "py-0"), ("MODIFIED", "py-1")], seen
            passed += 1

            # stale replace: 409 Conflict with the upstream message
            stale = api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py-2")
            api.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py-2",
                                               {"metadata": {"labels": {"touched": "yes"}}})
            stale["spec"]["replicas"] = 7
            try:
                api.replace_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py-2", stale)
                raise AssertionError("stale replace was accepted")
            except ApiException as error:
                assert error.status == 409, error.status
                assert "the object has been modified; please apply your changes to the latest " \
                       "version and try again" in error.body, error.body
            passed += 1
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    main()
