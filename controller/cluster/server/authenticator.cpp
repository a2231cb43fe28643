#include "authenticator.h"

#include <openssl/crypto.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

using namespace Qt::StringLiterals;

namespace reconscope::controller::cluster {

namespace {

struct X509Deleter
{
    void operator()(X509 *p) const { X509_free(p); }
};
struct StoreDeleter
{
    void operator()(X509_STORE *p) const { X509_STORE_free(p); }
};
struct StoreContextDeleter
{
    void operator()(X509_STORE_CTX *p) const { X509_STORE_CTX_free(p); }
};
struct StackDeleter
{
    void operator()(STACK_OF(X509) * p) const { sk_X509_pop_free(p, X509_free); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

X509Ptr fromDer(const QByteArray &der)
{
    const auto *data = reinterpret_cast<const unsigned char *>(der.constData());
    return X509Ptr(d2i_X509(nullptr, &data, static_cast<long>(der.size())));
}

QStringList withAuthenticatedGroup(QStringList groups)
{
    if (!groups.contains(u"system:authenticated"_s))
        groups.append(u"system:authenticated"_s);
    return groups;
}

} // namespace

Authenticator::Authenticator(const QByteArray &caCertificatePem)
{
    setCaCertificate(caCertificatePem);
}

void Authenticator::setCaCertificate(const QByteArray &caCertificatePem)
{
    const auto certificates = QSslCertificate::fromData(caCertificatePem, QSsl::Pem);
    m_caDer = certificates.isEmpty() ? QByteArray() : certificates.first().toDer();
}

QSslCertificate Authenticator::caCertificate() const
{
    return m_caDer.isEmpty() ? QSslCertificate() : QSslCertificate(m_caDer, QSsl::Der);
}

void Authenticator::addToken(const QByteArray &token,
                             const QString &user,
                             const QStringList &groups)
{
    m_tokens.insert(token, UserInfo{ user, withAuthenticatedGroup(groups), true });
}

std::optional<UserInfo>
Authenticator::authenticateCertificate(const QList<QSslCertificate> &chain) const
{
    if (chain.isEmpty() || m_caDer.isEmpty())
        return std::nullopt;
    X509Ptr ca = fromDer(m_caDer);
    X509Ptr leaf = fromDer(chain.first().toDer());
    if (!ca || !leaf)
        return std::nullopt;
    std::unique_ptr<X509_STORE, StoreDeleter> store(X509_STORE_new());
    std::unique_ptr<STACK_OF(X509), StackDeleter> intermediates(sk_X509_new_null());
    if (!store || !intermediates || X509_STORE_add_cert(store.get(), ca.get()) != 1)
        return std::nullopt;
    for (qsizetype i = 1; i < chain.size(); ++i) {
        if (X509Ptr intermediate = fromDer(chain.at(i).toDer()))
            sk_X509_push(intermediates.get(), intermediate.release());
    }
    std::unique_ptr<X509_STORE_CTX, StoreContextDeleter> context(X509_STORE_CTX_new());
    if (!context
        || X509_STORE_CTX_init(context.get(), store.get(), leaf.get(), intermediates.get()) != 1)
        return std::nullopt;
    // kube-apiserver requires the client-auth usage (x509.ExtKeyUsageClientAuth).
    X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_CLIENT);
    if (X509_verify_cert(context.get()) != 1)
        return std::nullopt;

    // Subject entries in certificate order; the last CN counts (as Go's pkix.Name reads them).
    QString commonName;
    QStringList organizations;
    const X509_NAME *subject = X509_get_subject_name(leaf.get());
    for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
        const X509_NAME_ENTRY *entry = X509_NAME_get_entry(subject, i);
        const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
        if (nid != NID_commonName && nid != NID_organizationName)
            continue;
        unsigned char *utf8 = nullptr;
        const int length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
        if (length < 0)
            continue;
        const QString value = QString::fromUtf8(reinterpret_cast<const char *>(utf8), length);
        OPENSSL_free(utf8);
        if (nid == NID_commonName)
            commonName = value;
        else
            organizations.append(value);
    }
    if (commonName.isEmpty())
        return std::nullopt;
    return UserInfo{ commonName, withAuthenticatedGroup(organizations), true };
}

std::optional<UserInfo> Authenticator::authenticateBearer(const QByteArray &authorization) const
{
    const QByteArray value = authorization.trimmed();
    const qsizetype space = value.indexOf(' ');
    if (space <= 0 || value.left(space).toLower() != "bearer")
        return std::nullopt;
    const QByteArray token = value.mid(space + 1).trimmed();
    if (token.isEmpty())
        return std::nullopt;
    const auto it = m_tokens.constFind(token);
    if (it == m_tokens.constEnd())
        return std::nullopt;
    return *it;
}

QByteArray Authenticator::unauthorizedBody()
{
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"
           "\n";
}

} // namespace reconscope::controller::cluster
