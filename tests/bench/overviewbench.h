#pragma once

#include <QString>

#include <nlohmann/json.hpp>

class BenchServer;
class QNetworkAccessManager;

// All custom resources at once (issue 23): `crds` CRDs of the bench's own (group
// overview.bench.reconscope.dev, kinds Widget0..), `objects` objects spread evenly over them in
// namespace "bench", each with a status that puts it in one of the lifecycle states in turn; then
// the console's CrdOverview over all of them, in a child process of its own: the time from start
// to every first list in (the overview complete), its peak memory against the JSON of the lists,
// and the counts it found. Returns the figures (overview_*).
nlohmann::json benchOverview(
    BenchServer &server, QNetworkAccessManager &nam, int objects, int crds, int *failures);

// `reconscope_bench --overview-child KUBECONFIG CRDS`: the overview of the bench's CRDs; prints one
// JSON line (seconds, objects, counts, baseline and peak RSS) once it is complete.
int runOverviewChild(const QString &kubeconfigPath, int crds);
