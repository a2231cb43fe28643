#include "benchserver.h"

#include "controller/kube/kubeconfig.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>

#include <algorithm>

using namespace Qt::StringLiterals;

BenchServer::~BenchServer()
{
    stop();
}

bool BenchServer::start()
{
    // RECONSCOPE_BENCH_SERVER: another `reconscope` to serve (e.g. an older build, to compare
    // the two back to back under the same load).
    const QString server = qEnvironmentVariable("RECONSCOPE_BENCH_SERVER");
    m_process.setProgram(server.isEmpty() ? QStringLiteral(RECONSCOPE_EXECUTABLE) : server);
    m_process.setArguments({ u"serve"_s,
                             u"--no-demo"_s,
                             u"--listen"_s,
                             u"127.0.0.1:0"_s,
                             u"--kubeconfig-out"_s,
                             kubeconfigPath() });
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
    const auto kubeconfig = reconscope::controller::kube::Kubeconfig::load(kubeconfigPath());
    if (!kubeconfig)
        return false;
    const auto config = kubeconfig->resolve();
    if (!config)
        return false;
    m_config = config.value();
    return true;
}

void BenchServer::stop()
{
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
    return procStatusKb(pid(), "VmHWM") * 1024;
}

qint64 BenchServer::currentRss() const
{
    return procStatusKb(pid(), "VmRSS") * 1024;
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto index = std::min(values.size() - 1, size_t(p / 100.0 * double(values.size())));
    return values[index];
}
