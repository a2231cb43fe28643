#pragma once

#include "benchserver.h"

#include <QList>
#include <QString>
#include <QStringList>

// The speed race (issue 20, part 3): the same CustomApps loaded into a server, then the clients
// users have, each listing all of them, in alternating rounds whose medians are compared:
//
//   informer     reconscope's InformerStore to a complete store (--informer-child)
//   console      reconscope's console to a sorted, painted table (--console-child)
//   client-go    a dynamicinformer to WaitForCacheSync (tools/bench-peers/clientgo), as client-go
//                does unasked (streaming watch-list where the server offers it), and
//   client-go-list  the same with the WatchListClient gate off (a list, then a watch)
//   k9s          k9s in tmux until its CustomApp view's title counts every row
//   kubectl      kubectl get customapps -A -o json
//   python       the Python kubernetes client, pages of 500
//
// Each run is timed, with its CPU seconds and peak resident memory, and the server's CPU seconds
// during it; the server's own time to the list's last byte is measured apart by a client that
// only counts bytes (the informer's request, pages of 500, a watch-list stream). Wall times swing
// on two shared cores: CPU seconds are printed beside them.
struct RaceOptions
{
    QList<BenchServer::Kind> servers;
    int objects = 50000;
    int rounds = 3;
    QStringList peers; // empty: every peer
    QString jsonPath; // figures as JSON, when set
};

// The peers' names in their default order.
QStringList racePeers();

// Runs the race on each server in turn (started, loaded, raced, stopped); prints a table per
// server and the targets. Returns 0 when every run completed.
int runRace(const RaceOptions &options);
