// `reconscope replay FILE... [--resource R] [--speed X|max] [-o json]`: a recording (or kubectl
// captures, merged by time) played back through the lifecycle rules, each transition printed as
// `reconscope watch` printed it live, at the recorded times' pace (X times as fast; "max": no
// waiting). No cluster is needed: the recording holds the CRDs the lifecycle is read with.
#include "app/cli/replayarguments.h"
#include "app/commands.h"
#include "app/transitionprinter.h"
#include "controller/kube/discovery.h"
#include "controller/record/discoveryjson.h"
#include "controller/record/recordingset.h"
#include "controller/record/replaystate.h"

#include <nlohmann/json.hpp>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QHash>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

using namespace Qt::StringLiterals;
namespace kube = reconscope::controller::kube;
namespace models = reconscope::models;
namespace record = reconscope::controller::record;

namespace reconscope::app {

namespace {

constexpr const char *Usage
    = "usage: reconscope replay FILE... [--resource R] [--speed X|max] [-o json]\n";

int usageError(const QString &message)
{
    std::fprintf(stderr, "reconscope replay: %s\n%s", qPrintable(message), Usage);
    return 2;
}

// Plays one recording: which resources are printed, their printers, and the pace.
class Replay
{
public:
    Replay(record::RecordSource &source, QString resource, double speed, bool json)
        : m_source(source)
        , m_resourceArgument(std::move(resource))
        , m_speed(speed)
        , m_json(json)
    { }

    int run();

private:
    std::optional<QString> select(); // an error when --resource names nothing recorded
    TransitionPrinter *printerFor(int resource);
    void wait(qint64 time);
    void note(const record::Record &record);

    record::RecordSource &m_source;
    QString m_resourceArgument;
    double m_speed;
    bool m_json;
    record::ReplayState m_state;
    bool m_selected = false;
    QHash<int, QString> m_prefixes; // the resources printed, and their keys' prefix
    QHash<int, std::shared_ptr<TransitionPrinter>> m_printers;
    std::optional<qint64> m_firstTime;
    std::chrono::steady_clock::time_point m_began;
};

std::optional<QString> Replay::select()
{
    m_selected = true;
    QList<int> chosen;
    const auto &resources = m_state.resources();
    if (m_resourceArgument.isEmpty()) {
        for (auto it = resources.cbegin(); it != resources.cend(); ++it) {
            if (!it->isEvents())
                chosen.append(it.key());
        }
    } else {
        // As kubectl resolves it, against the recorded discovery (else the recorded resources).
        QList<kube::DiscoveredResource> known = record::discoveryFromJson(m_state.discovery());
        QStringList names;
        for (const record::RecordedResource &r : resources) {
            names.append(r.qualifiedName());
            kube::DiscoveredResource d;
            d.group = r.group;
            d.version = r.version;
            d.plural = r.plural;
            d.kind = r.kind;
            d.singular = r.kind.toLower();
            d.namespaced = r.namespaced;
            d.preferredVersion = true;
            known.append(d);
        }
        const auto resolved = kube::discovery::resolve(known, m_resourceArgument);
        for (auto it = resources.cbegin(); resolved && it != resources.cend(); ++it) {
            if (it->group == resolved->group && it->plural == resolved->plural)
                chosen.append(it.key());
        }
        if (chosen.isEmpty()) {
            names.removeDuplicates();
            return u"the recording holds no %1 (it holds %2)"_s.arg(
                m_resourceArgument, names.isEmpty() ? u"nothing"_s : names.join(u", "_s));
        }
    }
    QStringList distinct;
    for (const int id : std::as_const(chosen)) {
        if (!distinct.contains(resources[id].qualifiedName()))
            distinct.append(resources[id].qualifiedName());
    }
    // Keys of several resources would be told apart by nothing: their resource goes first.
    for (const int id : std::as_const(chosen))
        m_prefixes.insert(id,
                          distinct.size() > 1 ? resources[id].qualifiedName() + u'/' : QString());
    return std::nullopt;
}

TransitionPrinter *Replay::printerFor(int resource)
{
    if (!m_prefixes.contains(resource))
        return nullptr;
    std::shared_ptr<TransitionPrinter> printer = m_printers.value(resource);
    if (!printer) {
        const record::RecordedResource &r = m_state.resources()[resource];
        printer = std::make_shared<TransitionPrinter>("replay", m_state.mappingOf(r), m_json);
        m_printers.insert(resource, printer);
        // Resources recorded in several namespaces (merged inputs) share one printer.
        for (auto it = m_state.resources().cbegin(); it != m_state.resources().cend(); ++it) {
            if (it.key() != resource && it->group == r.group && it->plural == r.plural
                && m_prefixes.contains(it.key()))
                m_printers.insert(it.key(), printer);
        }
    }
    return printer.get();
}

void Replay::wait(qint64 time)
{
    if (!m_firstTime) {
        m_firstTime = time;
        m_began = std::chrono::steady_clock::now();
        return;
    }
    if (m_speed <= 0)
        return;
    const auto due
        = m_began + std::chrono::microseconds(qint64(double(time - *m_firstTime) / m_speed));
    if (due > std::chrono::steady_clock::now()) {
        std::fflush(stdout);
        std::this_thread::sleep_until(due);
    }
}

void Replay::note(const record::Record &record)
{
    if (record.resource >= 0 && m_selected && !m_prefixes.contains(record.resource))
        return;
    std::fprintf(stderr, "reconscope replay: %s\n", record.data.constData());
}

int Replay::run()
{
    for (const QString &warning : m_source.warnings())
        std::fprintf(stderr, "reconscope replay: warning: %s\n", qPrintable(warning));
    QList<record::ReplayChange> changes;
    for (;;) {
        auto next = m_source.next();
        if (!next) {
            std::fflush(stdout);
            std::fprintf(stderr, "reconscope replay: %s\n", qPrintable(next.error().message));
            return 1;
        }
        if (!next.value())
            break;
        const record::Record &record = *next.value();
        if (record.type == record::RecordType::Note) {
            note(record);
            continue;
        }
        changes.clear();
        m_state.apply(record, &changes);
        if (changes.isEmpty())
            continue;
        if (!m_selected) {
            if (const auto error = select()) {
                std::fprintf(stderr, "reconscope replay: %s\n", qPrintable(*error));
                return 1;
            }
        }
        wait(record.time);
        const QDateTime time = m_source.header().wallTime(record.time);
        for (const record::ReplayChange &change : std::as_const(changes)) {
            TransitionPrinter *printer = printerFor(change.resource);
            if (!printer)
                continue;
            const QString key = m_prefixes.value(change.resource) + change.key;
            const models::Observed observed = change.observed();
            if (change.type == record::ReplayChange::Type::Delete)
                printer->remove(key, time, observed, change.estimated);
            else
                printer->upsert(change.object, key, time, observed, change.estimated);
        }
    }
    std::fflush(stdout);
    if (!m_selected && !m_resourceArgument.isEmpty()) {
        if (const auto error = select()) {
            std::fprintf(stderr, "reconscope replay: %s\n", qPrintable(*error));
            return 1;
        }
    }
    const record::RecordingEnd end = m_source.end();
    if (!end.complete)
        std::fprintf(
            stderr, "reconscope replay: the recording was %s\n", qPrintable(end.describe()));
    return 0;
}

} // namespace

int runReplay(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Play a recording (or kubectl captures) back, printing each lifecycle transition as "
        "`reconscope watch` printed it."_s);
    parser.addHelpOption();
    parser.addPositionalArgument(u"FILE"_s,
                                 u"A recording of `reconscope record`, or kubectl captures "
                                 "(merged by time)."_s,
                                 u"FILE..."_s);
    const QCommandLineOption resourceOption(
        u"resource"_s, u"Only this resource's objects (default: all but Events)."_s, u"R"_s);
    const QCommandLineOption speedOption(
        u"speed"_s, u"X times as fast as recorded (default 1), or max."_s, u"X"_s);
    const QCommandLineOption outputOption(
        { u"o"_s, u"output"_s }, u"\"json\": one JSON object per line."_s, u"FORMAT"_s);
    parser.addOptions({ resourceOption, speedOption, outputOption });
    QStringList arguments{ QCoreApplication::applicationFilePath() };
    arguments += argumentsAfterCommand(argc, argv);
    parser.process(arguments);

    if (parser.positionalArguments().isEmpty())
        return usageError(u"name the recording to replay"_s);
    const auto output = parser.value(outputOption);
    if (!output.isEmpty() && output != u"json"_s)
        return usageError(u"unknown output format \"%1\" (only json)"_s.arg(output));
    double speed = 1;
    if (parser.isSet(speedOption)) {
        const auto parsed = parseReplaySpeed(parser.value(speedOption));
        if (!parsed)
            return usageError(
                u"--speed \"%1\" is not a positive number or max"_s.arg(parser.value(speedOption)));
        speed = *parsed;
    }
    auto source = record::openRecordSource(parser.positionalArguments());
    if (!source) {
        std::fprintf(stderr, "reconscope replay: %s\n", qPrintable(source.error().message));
        return 1;
    }
    Replay replay(*source.value(), parser.value(resourceOption), speed, !output.isEmpty());
    return replay.run();
}

} // namespace reconscope::app
