#include "embeddedserver.h"

#include <QRandomGenerator>

#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

QByteArray randomToken()
{
    quint32 words[8];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex();
}

} // namespace

EmbeddedServer::EmbeddedServer(ApiHandlerFactory factory,
                               EmbeddedServerOptions options,
                               QObject *parent)
    : QObject(parent)
    , m_factory(std::move(factory))
    , m_options(std::move(options))
    , m_faults(std::make_shared<FaultInjector>())
{
    if (m_options.adminToken.isEmpty())
        m_options.adminToken = randomToken();
    if (m_options.viewerToken.isEmpty())
        m_options.viewerToken = randomToken();
}

EmbeddedServer::~EmbeddedServer()
{
    // The transport goes first: its watches are cancelled while the handler's objects (children
    // of this object) still exist.
    delete m_http.data();
}

models::Status<> EmbeddedServer::fail(const QString &message)
{
    spdlog::error("embedded cluster: {}", message.toStdString());
    delete m_http.data();
    emit startFailed(message);
    return models::Status<>::failure(message);
}

models::Status<> EmbeddedServer::start()
{
    if (m_running)
        return models::Status<>::failure(u"the embedded cluster is already running"_s);
    const bool restart = static_cast<bool>(m_handler);
    if (!restart) {
        auto certificates = generateClusterCertificates();
        if (!certificates)
            return fail(certificates.error().message);
        m_certificates = *certificates;
        m_handler = m_factory ? m_factory(*this) : ApiHandler();
        if (!m_handler)
            return fail(u"no API handler"_s);
    }

    Authenticator authenticator(m_certificates.ca.certificatePem);
    authenticator.addToken(m_options.adminToken, u"reconscope-token"_s, { u"system:masters"_s });
    authenticator.addToken(
        m_options.viewerToken, u"reconscope-viewer-token"_s, { u"reconscope:viewers"_s });

    m_http = new HttpsApiServer(m_handler, this);
    if (auto status = m_http->setServerCertificate(m_certificates.server.certificatePem,
                                                   m_certificates.server.privateKeyPem);
        !status)
        return fail(status.error().message);
    m_http->setAuthenticator(authenticator);
    m_http->setFaultInjector(m_faults);
    // A restart keeps the port, so that clients and the kubeconfig stay valid.
    const quint16 wantedPort
        = restart && m_url.port() > 0 ? static_cast<quint16>(m_url.port()) : m_options.port;
    const auto port = m_http->listen(m_options.address, wantedPort);
    if (!port)
        return fail(port.error().message);
    m_url = m_http->url();

    if (!m_options.kubeconfigPath.isEmpty()) {
        if (auto written = KubeconfigWriter::write(m_options.kubeconfigPath, kubeconfig());
            !written)
            return fail(written.error().message);
    }
    m_running = true;
    spdlog::info("embedded cluster: serving {}", m_url.toString().toStdString());
    emit started(m_url);
    return {};
}

void EmbeddedServer::stop()
{
    if (!m_running)
        return;
    m_running = false;
    delete m_http.data();
    emit stopped();
}

KubeconfigContent EmbeddedServer::kubeconfig() const
{
    KubeconfigContent content;
    content.server = m_url;
    content.caCertificatePem = m_certificates.ca.certificatePem;
    content.adminCertificatePem = m_certificates.admin.certificatePem;
    content.adminKeyPem = m_certificates.admin.privateKeyPem;
    content.adminToken = m_options.adminToken;
    content.viewerCertificatePem = m_certificates.viewer.certificatePem;
    content.viewerKeyPem = m_certificates.viewer.privateKeyPem;
    return content;
}

} // namespace reconscope::controller::cluster
