// The program's first minutes: `reconscope --help` lists every command, a mistyped command or
// option is a usage error (exit 2, naming it), and the console without a display says so in one
// line and exits 1, without a crash report.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;

namespace {

using Environment = QMap<QString, QString>;

struct Run
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out;
    QString err;
};

// The binary with DISPLAY, WAYLAND_DISPLAY, QT_QPA_PLATFORM and QT_LOGGING_RULES removed, then
// `set` applied.
Run run(const QStringList &arguments, const QMap<QString, QString> &set = {})
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name :
         { u"DISPLAY"_s, u"WAYLAND_DISPLAY"_s, u"QT_QPA_PLATFORM"_s, u"QT_LOGGING_RULES"_s })
        environment.remove(name);
    for (auto it = set.cbegin(); it != set.cend(); ++it)
        environment.insert(it.key(), it.value());
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(RECONSCOPE_EXECUTABLE), arguments);
    Run result;
    if (!process.waitForFinished(30000)) {
        process.kill();
        process.waitForFinished();
        result.err = u"timed out"_s;
        return result;
    }
    result.exitCode = process.exitCode();
    result.status = process.exitStatus();
    result.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    result.err = QString::fromLocal8Bit(process.readAllStandardError());
    return result;
}

const QStringList Commands{ u"serve"_s,        u"watch"_s,   u"record"_s, u"replay"_s,
                            u"play"_s,         u"explain"_s, u"fields"_s, u"reconcile"_s,
                            u"conflict-lab"_s, u"lint-crd"_s };

// The lines of the "Commands:" block, one per command, by their first word.
QStringList listedCommands(const QString &text)
{
    QStringList words;
    const qsizetype from = text.indexOf(u"Commands:\n"_s);
    if (from < 0)
        return words;
    const QStringList lines = text.mid(from).split(u'\n').mid(1);
    for (const QString &line : lines) {
        if (!line.startsWith(u"  "_s))
            break;
        words << line.trimmed().section(u' ', 0, 0);
    }
    return words;
}

} // namespace

class tst_CommandLine final : public QObject
{
    Q_OBJECT

private slots:
    void helpListsEveryCommand()
    {
        const Run help = run({ u"--help"_s });
        QCOMPARE(help.status, QProcess::NormalExit);
        QCOMPARE(help.exitCode, 0);
        QCOMPARE(listedCommands(help.out), QStringList{ u"(none)"_s } + Commands);
        // One line each: a summary follows every command word.
        const qsizetype from = help.out.indexOf(u"Commands:\n"_s);
        for (const QString &command : Commands) {
            const QRegularExpression line(u"\n  "_s + QRegularExpression::escape(command)
                                          + u" +\\S.*\n"_s);
            QVERIFY2(line.match(help.out, from).hasMatch(), qPrintable(command));
        }
    }

    void everyListedCommandAnswersHelp_data()
    {
        QTest::addColumn<QString>("command");
        for (const QString &command : Commands)
            QTest::newRow(command.toUtf8().constData()) << command;
    }
    void everyListedCommandAnswersHelp()
    {
        QFETCH(QString, command);
        const Run help = run({ command, u"--help"_s });
        QCOMPARE(help.status, QProcess::NormalExit);
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.contains(u"usage"_s, Qt::CaseInsensitive), qPrintable(help.out));
    }

    void unknownWordsAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        QTest::newRow("command") << QStringList{ u"nosuchcommand"_s } << u"nosuchcommand"_s;
        QTest::newRow("near miss") << QStringList{ u"wacth"_s, u"customapps"_s } << u"wacth"_s;
        QTest::newRow("option") << QStringList{ u"--frobnicate"_s } << u"frobnicate"_s;
        QTest::newRow("option after a good one")
            << QStringList{ u"--no-reconciler"_s, u"--frobnicate=3"_s } << u"frobnicate"_s;
        QTest::newRow("value missing") << QStringList{ u"--kubeconfig"_s } << u"kubeconfig"_s;
    }
    void unknownWordsAreUsageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        // With a display named, so that nothing but the usage check can stop the console.
        const Run result = run(arguments, { { u"QT_QPA_PLATFORM"_s, u"offscreen"_s } });
        QCOMPARE(result.status, QProcess::NormalExit);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(named), qPrintable(result.err));
        QCOMPARE(listedCommands(result.err), QStringList{ u"(none)"_s } + Commands);
        QVERIFY2(!result.err.contains(u"crash report"_s), qPrintable(result.err));
    }

    void noDisplayIsOneLine_data()
    {
        QTest::addColumn<Environment>("environment");
        QTest::newRow("none named") << Environment{};
        // Named but not there: the window system refuses, which must not abort.
        QTest::newRow("unreachable X display") << Environment{ { u"DISPLAY"_s, u":987"_s } };
    }
    void noDisplayIsOneLine()
    {
        QFETCH(Environment, environment);
        const Run result = run({}, environment);
        QCOMPARE(result.status, QProcess::NormalExit);
        QCOMPARE(result.exitCode, 1);
        const QStringList lines = result.err.trimmed().split(u'\n');
        QVERIFY2(lines.size() == 1, qPrintable(result.err));
        QVERIFY2(lines.constFirst().contains(u"display"_s, Qt::CaseInsensitive),
                 qPrintable(result.err));
        QVERIFY2(!result.err.contains(u"crash report"_s), qPrintable(result.err));
    }

    // `reconscope --recording FILE`: the replay window, no cluster; a file it cannot read is one
    // line naming it.
    void recordingOpensOrSaysWhy()
    {
        const Environment offscreen{ { u"QT_QPA_PLATFORM"_s, u"offscreen"_s } };
        const Run missing = run({ u"--recording"_s, u"/nonexistent/incident.rrec"_s }, offscreen);
        QCOMPARE(missing.status, QProcess::NormalExit);
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains(u"/nonexistent/incident.rrec"_s), qPrintable(missing.err));
        QVERIFY2(!missing.err.contains(u"crash report"_s), qPrintable(missing.err));
        QTemporaryDir dir;
        const QString png = dir.filePath(u"replay.png"_s);
        const Run shown = run({ u"--recording"_s,
                                u":/recordings/customapp-tour.rrec"_s,
                                u"--screenshot"_s,
                                png,
                                u"--screenshot-after"_s,
                                u"0"_s },
                              offscreen);
        QCOMPARE(shown.exitCode, 0);
        QVERIFY2(!shown.err.contains(u"crash report"_s), qPrintable(shown.err));
        QFile image(png);
        QVERIFY(image.open(QIODevice::ReadOnly));
        QVERIFY(image.size() > 10000);
        QCOMPARE(image.read(4), QByteArray("\x89PNG"));
    }
};

QTEST_GUILESS_MAIN(tst_CommandLine)
#include "tst_commandline.moc"
