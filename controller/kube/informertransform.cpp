#include "controller/kube/informertransform.h"

#include "controller/kube/fastlist/streamedget.h"
#include "controller/kube/fastlist/stringpool.h"
#include "controller/kube/objectsummarizer.h"

#include <QMutex>

namespace reconscope::controller::kube {

nlohmann::json InformerEntry::json() const
{
    const QByteArray bytes = raw.bytes();
    auto parsed = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (parsed.is_discarded())
        return nullptr;
    return parsed;
}

namespace {

class PlainTransform final : public InformerTransform
{
public:
    explicit PlainTransform(const models::LifecycleMapping &mapping)
        : m_summarizer(mapping)
    { }

    bool make(QByteArrayView object, InformerEntry &entry) const override
    {
        auto summary = m_summarizer.summarize(object);
        if (!summary)
            return false;
        entry.summary = std::move(summary.value());
        entry.raw = CompactJson::uncompressed(object.toByteArray());
        return true;
    }

private:
    const ObjectSummarizer m_summarizer;
};

class CompactTransform final : public InformerTransform
{
public:
    explicit CompactTransform(const models::LifecycleMapping &mapping)
        : m_summarizer(mapping)
    { }

    bool make(QByteArrayView object, InformerEntry &entry) const override
    {
        // Interned as it is read.
        auto summary = m_summarizer.summarize(object, &m_strings);
        if (!summary)
            return false;
        entry.summary = std::move(summary.value());
        entry.raw = CompactJson::compress(object, dictionary(object));
        return true;
    }

    std::shared_ptr<const PageTransport> listTransport() const override
    {
        return streamedGetTransport();
    }

private:
    // The compression dictionary: the first object this transform sees.
    std::shared_ptr<const CompactJsonDictionary> dictionary(QByteArrayView sample) const
    {
        QMutexLocker locker(&m_mutex);
        if (!m_tried) {
            m_tried = true;
            m_dictionary = CompactJsonDictionary::fromSample(sample);
        }
        return m_dictionary;
    }

    const ObjectSummarizer m_summarizer;
    // Equal strings of the summaries shared (interned as a list streams in).
    mutable StringPool m_strings;
    mutable QMutex m_mutex;
    mutable bool m_tried = false;
    mutable std::shared_ptr<const CompactJsonDictionary> m_dictionary;
};

class SummaryTransform final : public InformerTransform
{
public:
    explicit SummaryTransform(const models::LifecycleMapping &mapping)
        : m_summarizer(mapping)
    { }

    bool make(QByteArrayView object, InformerEntry &entry) const override
    {
        auto summary = m_summarizer.summarize(object, &m_strings);
        if (!summary)
            return false;
        entry.summary = std::move(summary.value());
        return true;
    }

    std::shared_ptr<const PageTransport> listTransport() const override
    {
        return streamedGetTransport();
    }

private:
    const ObjectSummarizer m_summarizer;
    mutable StringPool m_strings;
};

} // namespace

InformerTransformFactory plainTransform()
{
    return [](const models::LifecycleMapping &mapping) {
        return std::make_shared<const PlainTransform>(mapping);
    };
}

InformerTransformFactory compactTransform()
{
    return [](const models::LifecycleMapping &mapping) {
        return std::make_shared<const CompactTransform>(mapping);
    };
}

InformerTransformFactory summaryTransform()
{
    return [](const models::LifecycleMapping &mapping) {
        return std::make_shared<const SummaryTransform>(mapping);
    };
}

} // namespace reconscope::controller::kube
