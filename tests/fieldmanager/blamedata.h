#pragma once

// The objects tst_blame reads (kept out of the test's .cpp: moc misreads raw strings there).

namespace {

const char *const Object = R"({
  "apiVersion": "infrastructure.internal.net/v1", "kind": "CustomApp",
  "metadata": {"name": "web", "namespace": "default", "labels": {"team": "sre"},
    "managedFields": [
      {"manager": "gitops", "operation": "Apply", "apiVersion": "infrastructure.internal.net/v1",
       "time": "2026-12-05T01:00:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:spec": {"f:replicas": {}, "f:args": {},
                               "f:ports": {"k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}}}}},
      {"manager": "kubectl-label", "operation": "Update", "apiVersion": "infrastructure.internal.net/v1",
       "time": "2026-12-05T01:01:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:team": {}}}}},
      {"manager": "reconciler", "operation": "Update", "apiVersion": "infrastructure.internal.net/v1",
       "time": "2026-12-05T01:02:00Z", "fieldsType": "FieldsV1", "subresource": "status",
       "fieldsV1": {"f:status": {"f:readyReplicas": {}}}},
      {"manager": "argo", "operation": "Apply", "apiVersion": "infrastructure.internal.net/v1",
       "fieldsType": "FieldsV1", "time": "2026-12-05T01:03:00Z",
       "fieldsV1": {"f:spec": {"f:replicas": {}}}},
      {"manager": "odd", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2",
       "fieldsV1": {}}
    ]},
  "spec": {"replicas": 3, "args": ["--a", "--b"],
           "ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}]},
  "status": {"readyReplicas": 3}
})";

// managedFields members of which no entry, or one entry, cannot be read.
const char *const UnreadableManagedFields[] = {
    R"("managedFields": 7)",
    R"("managedFields": [1, {"manager": "x"}])",
    R"("managedFields": [{"manager": "m", "operation": "Apply",
                          "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": []}}])",
};

} // namespace
