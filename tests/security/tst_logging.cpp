// app/logging: `--log-level LEVEL` on any command line (removed before the command sees it),
// SPDLOG_LEVEL from the environment, the option winning over the variable, extra sinks.
#include "app/logging.h"

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <QtTest>

#include <sstream>
#include <vector>

using namespace Qt::StringLiterals;
namespace logging = reconscope::app::logging;
using Level = spdlog::level::level_enum;

Q_DECLARE_METATYPE(spdlog::level::level_enum)

namespace {

// argv as main() gets it: a writable array with a null after the last argument.
struct Argv
{
    explicit Argv(const QStringList &arguments)
    {
        for (const QString &argument : arguments)
            storage.push_back(argument.toStdString());
        for (auto &s : storage)
            pointers.push_back(s.data());
        pointers.push_back(nullptr);
        argc = int(storage.size());
    }
    QStringList remaining() const
    {
        QStringList result;
        for (int i = 0; i < argc; ++i)
            result << QString::fromLocal8Bit(pointers[size_t(i)]);
        return result;
    }
    std::vector<std::string> storage;
    std::vector<char *> pointers;
    int argc = 0;
};

} // namespace

class tst_Logging final : public QObject
{
    Q_OBJECT

private slots:
    void cleanup();
    void parseLevel_data();
    void parseLevel();
    void option_data();
    void option();
    void environmentVariable();
    void optionWinsOverEnvironment();
    void addedSinkSeesMessages();
};

void tst_Logging::cleanup()
{
    qunsetenv("SPDLOG_LEVEL");
}

void tst_Logging::parseLevel_data()
{
    QTest::addColumn<QString>("word");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<Level>("level");
    QTest::newRow("trace") << u"trace"_s << true << spdlog::level::trace;
    QTest::newRow("debug") << u"debug"_s << true << spdlog::level::debug;
    QTest::newRow("info") << u"info"_s << true << spdlog::level::info;
    QTest::newRow("warn") << u"warn"_s << true << spdlog::level::warn;
    QTest::newRow("warning") << u"WARNING"_s << true << spdlog::level::warn;
    QTest::newRow("error") << u"error"_s << true << spdlog::level::err;
    QTest::newRow("critical") << u"critical"_s << true << spdlog::level::critical;
    QTest::newRow("off") << u"off"_s << true << spdlog::level::off;
    QTest::newRow("loud") << u"loud"_s << false << spdlog::level::off;
    QTest::newRow("empty") << QString() << false << spdlog::level::off;
}

void tst_Logging::parseLevel()
{
    QFETCH(QString, word);
    QFETCH(bool, valid);
    QFETCH(Level, level);
    const auto parsed = logging::parseLevel(word);
    QCOMPARE(parsed.has_value(), valid);
    if (valid)
        QCOMPARE(*parsed, level);
}

void tst_Logging::option_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("remaining");
    QTest::addColumn<QString>("error"); // fragment; empty when valid
    QTest::addColumn<Level>("level");
    QTest::newRow("none") << QStringList{ u"reconscope"_s, u"serve"_s }
                          << QStringList{ u"reconscope"_s, u"serve"_s } << QString()
                          << spdlog::level::info;
    QTest::newRow("after the command")
        << QStringList{ u"reconscope"_s,  u"watch"_s, u"customapps"_s,
                        u"--log-level"_s, u"trace"_s, u"-A"_s }
        << QStringList{ u"reconscope"_s, u"watch"_s, u"customapps"_s, u"-A"_s } << QString()
        << spdlog::level::trace;
    QTest::newRow("inline value") << QStringList{ u"reconscope"_s,
                                                  u"--log-level=error"_s,
                                                  u"serve"_s }
                                  << QStringList{ u"reconscope"_s, u"serve"_s } << QString()
                                  << spdlog::level::err;
    QTest::newRow("last one wins")
        << QStringList{ u"reconscope"_s, u"--log-level=error"_s, u"--log-level"_s, u"debug"_s }
        << QStringList{ u"reconscope"_s } << QString() << spdlog::level::debug;
    QTest::newRow("after --") << QStringList{ u"reconscope"_s, u"--"_s, u"--log-level=off"_s }
                              << QStringList{ u"reconscope"_s, u"--"_s, u"--log-level=off"_s }
                              << QString() << spdlog::level::info;
    QTest::newRow("unknown level")
        << QStringList{ u"reconscope"_s, u"--log-level"_s, u"loud"_s } << QStringList()
        << u"unknown log level \"loud\""_s << spdlog::level::info;
    QTest::newRow("missing value") << QStringList{ u"reconscope"_s, u"--log-level"_s }
                                   << QStringList() << u"needs a value"_s << spdlog::level::info;
}

void tst_Logging::option()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, remaining);
    QFETCH(QString, error);
    QFETCH(Level, level);
    Argv argv(arguments);
    const QString got = logging::configure(argv.argc, argv.pointers.data());
    if (!error.isEmpty()) {
        QVERIFY2(got.contains(error), qPrintable(got));
        QVERIFY2(got.contains(u"trace, debug, info, warn, error, critical, off"_s),
                 qPrintable(got));
        return;
    }
    QVERIFY2(got.isEmpty(), qPrintable(got));
    QCOMPARE(argv.remaining(), remaining);
    QCOMPARE(argv.pointers[size_t(argv.argc)], nullptr);
    QCOMPARE(logging::level(), level);
    QCOMPARE(spdlog::default_logger()->level(), level);
}

void tst_Logging::environmentVariable()
{
    qputenv("SPDLOG_LEVEL", "debug");
    Argv argv({ u"reconscope"_s, u"serve"_s });
    QVERIFY(logging::configure(argv.argc, argv.pointers.data()).isEmpty());
    QCOMPARE(logging::level(), spdlog::level::debug);

    // spdlog's per-logger syntax reaches the default logger by its name.
    qputenv("SPDLOG_LEVEL", "warn,reconscope=trace");
    QVERIFY(logging::configure(argv.argc, argv.pointers.data()).isEmpty());
    QCOMPARE(logging::level(), spdlog::level::trace);

    // A word spdlog does not know is ignored, as spdlog does: the default stays.
    qputenv("SPDLOG_LEVEL", "loud");
    QVERIFY(logging::configure(argv.argc, argv.pointers.data()).isEmpty());
    QCOMPARE(logging::level(), spdlog::level::info);
}

void tst_Logging::optionWinsOverEnvironment()
{
    qputenv("SPDLOG_LEVEL", "trace");
    Argv argv({ u"reconscope"_s, u"reconcile"_s, u"--log-level"_s, u"warn"_s });
    QVERIFY(logging::configure(argv.argc, argv.pointers.data()).isEmpty());
    QCOMPARE(logging::level(), spdlog::level::warn);
    QCOMPARE(argv.remaining(), (QStringList{ u"reconscope"_s, u"reconcile"_s }));
}

void tst_Logging::addedSinkSeesMessages()
{
    Argv argv({ u"reconscope"_s, u"--log-level=debug"_s });
    QVERIFY(logging::configure(argv.argc, argv.pointers.data()).isEmpty());
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    logging::addSink(sink);
    spdlog::debug("visible {}", 1);
    spdlog::trace("below the level {}", 2);
    spdlog::default_logger()->flush();
    logging::removeSink(sink);
    spdlog::info("after removal");
    spdlog::default_logger()->flush();
    const QString text = QString::fromStdString(out.str());
    QVERIFY2(text.contains(u"visible 1"_s), qPrintable(text));
    QVERIFY(!text.contains(u"below the level"_s));
    QVERIFY(!text.contains(u"after removal"_s));
}

QTEST_GUILESS_MAIN(tst_Logging)
#include "tst_logging.moc"
