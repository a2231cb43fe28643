#include "controller/labs/conflictgitops.h"

#include "controller/labs/conflictlabsetup.h"

#include <QTimer>

using namespace Qt::StringLiterals;
using nlohmann::json;

namespace reconscope::controller::labs {

ConflictGitOpsWriter::ConflictGitOpsWriter(kube::RestClient *client,
                                           const ConflictLabOptions &options,
                                           ConflictWriterSink sink,
                                           QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(options)
    , m_sink(std::move(sink))
    , m_random(options.seed)
{ }

apimachinery::ResourceRef ConflictGitOpsWriter::resource() const
{
    return ConflictLabSetup::resourceFor(m_options.design);
}

void ConflictGitOpsWriter::start(const QStringList &names)
{
    m_state = State::Running;
    m_names = names;
    for (int i = 0; i < m_names.size(); ++i) {
        m_nextValue[i] = 2;
        schedule(i);
    }
}

void ConflictGitOpsWriter::drain()
{
    if (m_state == State::Running)
        m_state = State::Draining;
}

void ConflictGitOpsWriter::settle()
{
    if (m_state == State::Running || m_state == State::Draining)
        m_state = State::Settling;
}

void ConflictGitOpsWriter::stop()
{
    m_state = State::Stopped;
}

void ConflictGitOpsWriter::schedule(int index)
{
    const int base = m_options.gitopsIntervalMs;
    const int delay = base / 2 + int(m_random.bounded(base + 1));
    QTimer::singleShot(delay, this, [this, index] {
        if (m_state != State::Running)
            return;
        sync(index);
        schedule(index);
    });
}

void ConflictGitOpsWriter::sync(int index)
{
    if (m_inFlight.contains(index))
        return; // the previous sync of this object is still retrying
    m_inFlight.insert(index);
    ++m_sink.figures.reconciles;
    std::int64_t &next = m_nextValue[index];
    const std::int64_t intended = next;
    next = next >= 1000 ? 2 : next + 1;

    if (m_options.design == ConflictDesign::Mixed) {
        applyMixed(index, intended, 1);
        return;
    }
    if (isApplyDesign(m_options.design)) {
        // As Flux applies: the whole manifest, its own field manager, forced.
        m_client->apply(
            resource(),
            m_options.namespace_,
            m_names.at(index),
            ConflictLabSetup::gitManifest(
                m_options.design, m_options.namespace_, m_names.at(index), index, intended),
            QString::fromLatin1(conflictGitOpsManager),
            true,
            [this, index, intended](kube::RestClient::JsonResult r) {
                if (m_state != State::Stopped)
                    handleAnswer(index, intended, 1, r);
            });
        return;
    }
    const json patch{ { "spec", { { "replicas", intended } } } };
    m_client->patch(resource(),
                    m_options.namespace_,
                    m_names.at(index),
                    apimachinery::PatchType::Merge,
                    QByteArray::fromStdString(patch.dump()),
                    [this, index, intended](kube::RestClient::JsonResult r) {
                        if (m_state != State::Stopped)
                            handleAnswer(index, intended, 1, r);
                    });
}

void ConflictGitOpsWriter::applyMixed(int index, std::int64_t intended, int attempt)
{
    // Re-GET the live object, put the Git manifest's spec on it, PUT at the live resourceVersion.
    m_client->get(resource(),
                  m_options.namespace_,
                  m_names.at(index),
                  [this, index, intended, attempt](kube::RestClient::JsonResult live) {
                      if (m_state == State::Stopped)
                          return;
                      if (!live.ok()) {
                          handleAnswer(index, intended, attempt, live);
                          return;
                      }
                      json body = std::move(live.value());
                      body["spec"] = ConflictLabSetup::gitSpec(index, intended);
                      m_client->update(
                          resource(),
                          m_options.namespace_,
                          m_names.at(index),
                          body,
                          [this, index, intended, attempt](kube::RestClient::JsonResult r) {
                              if (m_state != State::Stopped)
                                  handleAnswer(index, intended, attempt, r);
                          });
                  });
}

void ConflictGitOpsWriter::handleAnswer(int index,
                                        std::int64_t intended,
                                        int attempt,
                                        const kube::RestClient::JsonResult &result)
{
    if (result.ok()) {
        ++m_sink.figures.writes;
        m_sink.acknowledged(
            m_options.namespace_ + u'/' + m_names.at(index), intended, result.value());
    } else if (result.error().isConflict()) {
        ++m_sink.figures.conflicts;
        if (isApplyDesign(m_options.design))
            ++m_sink.figures.applyConflicts;
        if (m_options.design == ConflictDesign::Mixed && attempt < m_options.gitopsMaxAttempts
            && (m_state == State::Running || m_state == State::Draining)) {
            applyMixed(index, intended, attempt + 1);
            return;
        }
    } else {
        ++m_sink.figures.errors;
        if (m_sink.figures.errors == 1)
            m_sink.notes << tr("GitOps: %1").arg(result.error().toString());
    }
    m_inFlight.remove(index);
}

} // namespace reconscope::controller::labs
