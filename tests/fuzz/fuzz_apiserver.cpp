// libFuzzer target: the embedded cluster's request handling (controller/cluster ApiServer), in
// process, without sockets: what the HTTPS transport hands over after parsing a request.
//
// Input, HTTP-like:
//   METHOD /path?query
//   header-name: value        (zero or more)
//                             (blank line)
//   body
// Each input meets the same initial cluster, as an admin (system:masters). Invariants: the status
// is a real HTTP status; a JSON response body is valid JSON; a request answered 4xx changed nothing
// (the resourceVersion counter is unchanged and no event was committed). Watches are started, given
// the events they produce, and cancelled.

#include "controller/cluster/apiserver.h"
#include "controller/cluster/cluster.h"
#include "fuzzsupport.h"

#include <nlohmann/json.hpp>

#include <QUrl>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::cluster;

namespace {

class CountingSink final : public WatchSink
{
public:
    void send(const QByteArray &line) override
    {
        if (!line.endsWith('\n') || !nlohmann::json::accept(line.constBegin(), line.constEnd() - 1))
            std::abort(); // every watch line is one compact JSON object and a newline
        ++lines;
    }
    void finish() override { finished = true; }
    int lines = 0;
    bool finished = false;
};

ApiRequest parseRequest(const QByteArray &input)
{
    ApiRequest request;
    qsizetype headEnd = input.indexOf("\n\n");
    const QByteArray head = headEnd < 0 ? input : input.first(headEnd);
    if (headEnd >= 0)
        request.body = input.sliced(headEnd + 2);
    const QList<QByteArray> lines = head.split('\n');
    const QByteArray requestLine = lines.value(0);
    const qsizetype space = requestLine.indexOf(' ');
    request.method = space < 0 ? requestLine : requestLine.first(space);
    const QByteArray target = space < 0 ? QByteArray("/") : requestLine.sliced(space + 1);
    const QUrl url = QUrl::fromEncoded(target);
    request.path = url.path(QUrl::FullyDecoded);
    request.query = QUrlQuery(url.query(QUrl::FullyEncoded));
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon <= 0)
            continue;
        request.headers.append(
            { lines[i].first(colon).trimmed().toLower(), lines[i].sliced(colon + 1).trimmed() });
    }
    request.user = UserInfo{ u"kubernetes-admin"_s, { u"system:masters"_s }, true };
    return request;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    reconscope::fuzz::ensureApplication();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const ApiRequest request
        = parseRequest(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)));

    // A cluster is expensive to build: one serves every input until a request changes it (the
    // next input then starts from a fresh one, so each input meets the same initial state).
    static Cluster *cluster = nullptr; // left to the OS at exit, after Qt is gone
    static ApiServer *server = nullptr;
    static int events = 0;
    if (!cluster) {
        reconscope::fuzz::drainEvents();
        cluster = new Cluster;
        server = new ApiServer(cluster);
        cluster->subscribe([](const ClusterEvent &) { ++events; });
    }
    events = 0;
    const qint64 revisionBefore = cluster->currentResourceVersion();

    const ApiResponse response = server->handle(request);
    if (response.status < 100 || response.status > 599)
        std::abort();
    if (response.watch) {
        auto sink = std::make_shared<CountingSink>();
        response.watch->start(sink);
        response.watch->cancel();
    } else if (response.contentType.startsWith("application/json")
               && !nlohmann::json::accept(response.body.constBegin(), response.body.constEnd())) {
        std::abort(); // a JSON response that does not parse
    }
    const bool changed = cluster->currentResourceVersion() != revisionBefore || events != 0;
    if (response.status >= 400 && response.status < 500 && changed)
        std::abort(); // a refused request changed the cluster
    if (changed) {
        delete std::exchange(server, nullptr);
        delete std::exchange(cluster, nullptr);
    }
    return 0;
}
