// libFuzzer target: the kubeconfig loader (controller/kube/kubeconfig).
//
// The input is a kubeconfig file's text. It is parsed; a parse failure must say why and name the
// file. Every context of a parsed kubeconfig is then resolved (certificates and keys decoded and
// checked, token, proxy URL) unless it points at files: the fuzzer must not read the machine's
// files, so contexts with file paths are skipped. Exec plugins are never run by resolve().

#include "controller/kube/clientconfig.h"
#include "controller/kube/kubeconfig.h"
#include "fuzzsupport.h"

#include <cstdint>
#include <cstdlib>

using namespace Qt::StringLiterals;
using namespace reconscope::controller::kube;

namespace {

const QString fuzzFile = u"/nonexistent-reconscope-fuzz/kubeconfig"_s;

bool readsFiles(const Kubeconfig &config, const KubeconfigContext &context)
{
    const auto cluster = config.clusters().find(context.cluster);
    if (cluster != config.clusters().end() && !cluster->certificateAuthority.isEmpty())
        return true;
    const auto user = config.users().find(context.user);
    return user != config.users().end()
        && (!user->clientCertificate.isEmpty() || !user->clientKey.isEmpty()
            || !user->tokenFile.isEmpty());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    reconscope::fuzz::ensureApplication(); // certificate parsing initialises Qt's TLS backend
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray yaml(reinterpret_cast<const char *>(data), qsizetype(size));
    auto parsed = Kubeconfig::parse(yaml, fuzzFile);
    if (!parsed) {
        if (!parsed.error().message.contains(fuzzFile))
            std::abort(); // every error names the file
        return 0;
    }
    const Kubeconfig &config = *parsed;
    for (const KubeconfigContext &context : config.contexts()) {
        if (readsFiles(config, context))
            continue;
        auto resolved = config.resolve(context.name);
        if (!resolved && resolved.error().message.isEmpty())
            std::abort(); // a refused context always says why
    }
    if (!config.currentContext().isEmpty() && config.contexts().contains(config.currentContext())
        && !readsFiles(config, config.contexts().value(config.currentContext()))) {
        (void)config.resolve();
    }
    return 0;
}
