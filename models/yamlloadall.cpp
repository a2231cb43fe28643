#include "models/yamlloadall.h"

#include <yaml-cpp/eventhandler.h>

#include <sstream>

namespace reconscope::models {

namespace {

// Counts documents and throws once there are more than the text can hold.
class DocumentCounter final : public YAML::EventHandler
{
public:
    explicit DocumentCounter(std::size_t limit)
        : m_limit(limit)
    { }

    void OnDocumentStart(const YAML::Mark &mark) override
    {
        if (++m_documents > m_limit)
            throw YAML::ParserException(
                mark, "the YAML parser makes no progress (a malformed flow collection?)");
    }
    void OnDocumentEnd() override { }
    void OnNull(const YAML::Mark &, YAML::anchor_t) override { }
    void OnAlias(const YAML::Mark &, YAML::anchor_t) override { }
    void
    OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t, const std::string &) override
    { }
    void OnSequenceStart(const YAML::Mark &,
                         const std::string &,
                         YAML::anchor_t,
                         YAML::EmitterStyle::value) override
    { }
    void OnSequenceEnd() override { }
    void OnMapStart(const YAML::Mark &,
                    const std::string &,
                    YAML::anchor_t,
                    YAML::EmitterStyle::value) override
    { }
    void OnMapEnd() override { }

private:
    std::size_t m_limit;
    std::size_t m_documents = 0;
};

std::size_t occurrences(const std::string &text, const char *marker)
{
    std::size_t count = 0;
    for (std::size_t at = text.find(marker); at != std::string::npos;
         at = text.find(marker, at + 3))
        ++count;
    return count;
}

} // namespace

std::vector<YAML::Node> loadAllYamlDocuments(const std::string &yaml)
{
    {
        std::istringstream stream(yaml);
        YAML::Parser parser(stream);
        DocumentCounter counter(occurrences(yaml, "---") + occurrences(yaml, "...") + 1);
        while (parser.HandleNextDocument(counter)) { }
    }
    return YAML::LoadAll(yaml);
}

} // namespace reconscope::models
