#include "benchserver.h"

#include "controller/kube/kubeconfig.h"
#include "models/yamljson.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using namespace Qt::StringLiterals;

BenchServer::BenchServer(Kind kind)
    : m_kind(kind)
{ }

BenchServer::~BenchServer()
{
    stop();
}

bool BenchServer::start()
{
    return m_kind == Kind::Real ? startReal() : startEmbedded();
}

bool BenchServer::startEmbedded()
{
    const QString server = qEnvironmentVariable("RECONSCOPE_BENCH_SERVER");
    m_kubeconfig = m_dir.filePath(u"kubeconfig.yaml"_s);
    m_process.setProgram(server.isEmpty() ? QStringLiteral(RECONSCOPE_EXECUTABLE) : server);
    m_process.setArguments({ u"serve"_s,
                             u"--no-demo"_s,
                             u"--listen"_s,
                             u"127.0.0.1:0"_s,
                             u"--kubeconfig-out"_s,
                             m_kubeconfig });
    m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_process.start();
    QByteArray out;
    QDeadlineTimer deadline(30000);
    while (!deadline.hasExpired() && !out.contains("serving at")) {
        m_process.waitForReadyRead(200);
        out += m_process.readAllStandardOutput();
    }
    if (!out.contains("serving at"))
        return false;
    m_pids = { m_process.processId() };
    return readKubeconfig();
}

namespace {

QString clusterTool()
{
    return QStringLiteral(RECONSCOPE_SOURCE_DIR) + u"/tools/kubefixture/cluster.py"_s;
}

// cluster.py VERB ARGS..., its stderr forwarded; true when it exited 0.
bool runClusterTool(const QStringList &arguments, int timeoutMs)
{
    QProcess tool;
    tool.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    tool.setStandardOutputFile(QProcess::nullDevice());
    tool.start(u"/usr/bin/python3"_s, QStringList{ clusterTool() } + arguments);
    if (!tool.waitForFinished(timeoutMs)) {
        tool.kill();
        tool.waitForFinished();
        return false;
    }
    return tool.exitStatus() == QProcess::NormalExit && tool.exitCode() == 0;
}

} // namespace

bool BenchServer::startReal()
{
    const QString bin = qEnvironmentVariable("RECONSCOPE_KUBE_BIN");
    if (bin.isEmpty() || !QFile::exists(bin + u"/kube-apiserver"_s)) {
        std::fprintf(
            stderr,
            "the real server needs the control plane ./dev builds: RECONSCOPE_KUBE_BIN='%s' "
            "holds no kube-apiserver (run the bench through ./dev bench)\n",
            qPrintable(bin));
        return false;
    }
    m_clusterState = m_dir.filePath(u"realcluster"_s);
    if (!runClusterTool(
            { u"up"_s, u"--bin"_s, bin, u"--state"_s, m_clusterState, u"--control-plane-only"_s },
            300000)) {
        m_clusterState.clear(); // cluster.py stopped what it had started
        return false;
    }
    QFile stateFile(m_clusterState + u"/state.json"_s);
    if (!stateFile.open(QIODevice::ReadOnly))
        return false;
    const QByteArray stateText = stateFile.readAll();
    const auto state
        = nlohmann::json::parse(stateText.constBegin(), stateText.constEnd(), nullptr, false);
    if (state.is_discarded())
        return false;
    for (const char *name : { "kube-apiserver", "etcd" })
        m_pids << state["processes"][name].value("pid", qint64(0));
    m_kubeconfig = m_clusterState + u"/kubeconfig"_s;
    return readKubeconfig() && installCustomAppCrd();
}

bool BenchServer::readKubeconfig()
{
    const auto kubeconfig = reconscope::controller::kube::Kubeconfig::load(m_kubeconfig);
    if (!kubeconfig)
        return false;
    const auto config = kubeconfig->resolve();
    if (!config)
        return false;
    m_config = config.value();
    return true;
}

// The project's CustomApp CRD, created and then waited for until its collection answers (the
// embedded cluster serves it from the start).
bool BenchServer::installCustomAppCrd()
{
    QFile file(QStringLiteral(RECONSCOPE_SOURCE_DIR)
               + u"/resources/crds/customapps.infrastructure.internal.net.yaml"_s);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const auto documents = reconscope::models::yamlDocumentsToJson(file.readAll());
    if (!documents || documents.value().isEmpty())
        return false;
    QNetworkAccessManager nam;
    const auto created = send(nam,
                              "POST",
                              u"/apis/apiextensions.k8s.io/v1/customresourcedefinitions"_s,
                              QByteArray::fromStdString(documents.value().first().dump()),
                              "application/json");
    if (created.status != 201) {
        std::fprintf(
            stderr, "CustomApp CRD: %d %s\n", created.status, created.body.left(400).constData());
        return false;
    }
    const QDeadlineTimer deadline(60000);
    while (!deadline.hasExpired()) {
        if (send(nam, "GET", u"/apis/infrastructure.internal.net/v1/customapps?limit=1"_s).status
            == 200)
            return true;
        QThread::msleep(100);
    }
    std::fprintf(stderr, "CustomApp CRD: not served within 60 s\n");
    return false;
}

void BenchServer::stop()
{
    if (!m_clusterState.isEmpty()) {
        if (!runClusterTool({ u"down"_s, u"--state"_s, m_clusterState }, 60000))
            std::fprintf(stderr, "cluster.py down failed for %s\n", qPrintable(m_clusterState));
        m_clusterState.clear();
        m_pids.clear();
    }
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(10000))
        m_process.kill();
}

QNetworkRequest BenchServer::request(const QString &path, const QByteArray &contentType) const
{
    QUrl url = m_config.server;
    const auto question = path.indexOf(u'?');
    url.setPath(question < 0 ? path : path.left(question));
    if (question >= 0)
        url.setQuery(path.mid(question + 1));
    QNetworkRequest request(url);
    request.setSslConfiguration(m_config.sslConfiguration());
    request.setPeerVerifyName(m_config.peerVerifyName());
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setRawHeader("Accept", "application/json");
    // Not Qt's default ("Mozilla/5.0"), for which kube-apiserver pretty-prints its answers.
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("reconscope-bench"));
    if (!contentType.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    return request;
}

BenchServer::Reply BenchServer::send(QNetworkAccessManager &nam,
                                     const QByteArray &verb,
                                     const QString &path,
                                     const QByteArray &body,
                                     const QByteArray &contentType) const
{
    QNetworkReply *reply = nam.sendCustomRequest(request(path, contentType), verb, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Reply result{ reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                  reply->readAll() };
    reply->deleteLater();
    return result;
}

qint64 procStatusKb(qint64 pid, const char *field)
{
    QFile file(u"/proc/%1/status"_s.arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const auto prefix = QByteArray(field) + ':';
    for (const auto &line : file.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong();
    }
    return 0;
}

qint64 BenchServer::peakRss() const
{
    qint64 total = 0;
    for (const qint64 pid : m_pids)
        total += procStatusKb(pid, "VmHWM") * 1024;
    return total;
}

qint64 BenchServer::currentRss() const
{
    qint64 total = 0;
    for (const qint64 pid : m_pids)
        total += procStatusKb(pid, "VmRSS") * 1024;
    return total;
}

double BenchServer::cpuSeconds() const
{
    double total = 0;
    for (const qint64 pid : m_pids)
        total += procCpuSeconds(pid);
    return total;
}

double procCpuSeconds(qint64 pid)
{
    QFile file(u"/proc/%1/stat"_s.arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    // The command name (field 2) may hold spaces: the fields counted from after its ")".
    const QByteArray stat = file.readAll();
    const auto fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return 0;
    // utime and stime, fields 14 and 15 of the whole line, in clock ticks.
    return double(fields[11].toLongLong() + fields[12].toLongLong()) / double(sysconf(_SC_CLK_TCK));
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto index = std::min(values.size() - 1, size_t(p / 100.0 * double(values.size())));
    return values[index];
}
