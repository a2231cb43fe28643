#pragma once

#include <QString>

// The informer's child modes of reconscope_bench, each a fresh process so that its memory and
// CPU time are the informer's alone.

// `reconscope_bench --informer-child KUBECONFIG`: fills an InformerStore with every CustomApp of
// the cluster and prints one JSON line: seconds from start to synced, objects, the UI thread's and
// the whole process's CPU time over that span, resident memory before the start and at its peak.
int runInformerChild(const QString &kubeconfigPath);

// `reconscope_bench --informer-absorb EVENTS`: how many watch events per second an InformerStore
// absorbs from a local plain-HTTP server that lists 5,000 CustomApps and then streams EVENTS
// MODIFIED events as fast as the socket takes them; prints one JSON line.
int runInformerAbsorbChild(int events);
