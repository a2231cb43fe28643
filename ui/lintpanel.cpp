#include "ui/lintpanel.h"

#include "controller/console/consolesession.h"
#include "controller/kube/discovery.h"
#include "controller/lint/boundarycheck.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
namespace lint = reconscope::controller::lint;
namespace kube = reconscope::controller::kube;

namespace reconscope::ui {

using controller::console::ConsoleSession;

namespace {

QTableWidget *makeTable(const QStringList &headers, QWidget *parent)
{
    auto *table = new QTableWidget(0, int(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(true);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QTableWidgetItem *item(const QString &text, const QString &tooltip = {})
{
    auto *cell = new QTableWidgetItem(text);
    cell->setToolTip(tooltip.isEmpty() ? text : tooltip);
    return cell;
}

} // namespace

LintPanel::LintPanel(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_crds(new QComboBox(this))
    , m_open(new QPushButton(tr("Open file…"), this))
    , m_object(new QLineEdit(this))
    , m_live(new QPushButton(tr("Run live check"), this))
    , m_export(new QPushButton(tr("Export report…"), this))
    , m_status(new QLabel(this))
    , m_findings(makeTable({ tr("Severity"), tr("Rule"), tr("Path"), tr("Why it matters") }, this))
    , m_verdicts(makeTable({ tr("Verdict"), tr("Check"), tr("Observed") }, this))
{
    setWindowTitle(tr("Boundary verifier"));
    m_crds->setPlaceholderText(tr("CRD of the cluster"));
    m_crds->setMinimumContentsLength(24);
    m_object->setPlaceholderText(tr("namespace/name (default: the first object)"));
    m_status->setWordWrap(true);
    m_status->setText(tr("Pick a CRD or open a manifest."));

    auto *pickRow = new QHBoxLayout;
    pickRow->addWidget(m_crds, 1);
    pickRow->addWidget(m_open);
    auto *liveRow = new QHBoxLayout;
    liveRow->addWidget(m_object, 1);
    liveRow->addWidget(m_live);
    liveRow->addWidget(m_export);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_findings);
    split->addWidget(m_verdicts);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(pickRow);
    layout->addLayout(liveRow);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_crds, &QComboBox::activated, this, [this](int index) {
        lintClusterCrd(m_crds->itemText(index));
    });
    connect(m_open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open a CRD manifest"), QString(), tr("Manifests (*.yaml *.yml *.json)"));
        if (!path.isEmpty())
            openFile(path);
    });
    connect(m_live, &QPushButton::clicked, this, [this] { runLiveCheck(); });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this,
                                                          tr("Export the boundary report"),
                                                          u"boundary-report.md"_s,
                                                          tr("Markdown (*.md);;JSON (*.json)"));
        if (!path.isEmpty())
            exportReport(path);
    });
    connect(session, &ConsoleSession::connected, this, [this] { handleConnected(); });
    connect(session, &ConsoleSession::writesEnabledChanged, this, [this] { updateLiveButton(); });
    if (session->isConnected())
        handleConnected();
    updateLiveButton();
}

LintPanel::~LintPanel() = default;

void LintPanel::handleConnected()
{
    disconnect(m_crdsConnection);
    if (auto *discovery = m_session->discovery())
        m_crdsConnection = connect(
            discovery, &kube::DiscoveryClient::crdsChanged, this, [this] { refreshCrdList(); });
    refreshCrdList();
    updateLiveButton();
}

void LintPanel::refreshCrdList()
{
    auto *discovery = m_session->discovery();
    QStringList names = discovery ? discovery->crds().keys() : QStringList();
    names.sort();
    const QString current = m_crds->currentText();
    m_crds->clear();
    m_crds->addItems(names);
    m_crds->setCurrentIndex(int(names.indexOf(current)));
}

void LintPanel::lintClusterCrd(const QString &crdName)
{
    auto *discovery = m_session->discovery();
    const auto crds = discovery ? discovery->crds() : QHash<QString, QByteArray>();
    const auto it = crds.constFind(crdName);
    if (it == crds.constEnd()) {
        m_status->setText(
            tr("CustomResourceDefinition %1 is not known to discovery.").arg(crdName));
        return;
    }
    const nlohmann::json crd
        = nlohmann::json::parse(it->constBegin(), it->constEnd(), nullptr, false);
    auto linted = lint::lintCrd(crd);
    if (!linted) {
        m_status->setText(linted.error().message);
        return;
    }
    linted->source = u"cluster"_s;
    m_report = lint::BoundaryReport();
    m_report.lint = { linted.value() };
    m_crdJson = crd;
    m_crds->setCurrentIndex(m_crds->findText(crdName));
    showLint();
}

bool LintPanel::openFile(const QString &path)
{
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        m_status->setText(tr("%1: cannot read: %2").arg(path, in.errorString()));
        return false;
    }
    auto crds = lint::crdsFromManifest(in.readAll(), path);
    if (!crds) {
        m_status->setText(crds.error().message);
        return false;
    }
    lint::BoundaryReport report;
    for (const nlohmann::json &crd : crds.value()) {
        auto linted = lint::lintCrd(crd);
        if (!linted) {
            m_status->setText(tr("%1: %2").arg(path, linted.error().message));
            return false;
        }
        linted->source = path;
        report.lint.append(linted.value());
    }
    m_report = report;
    m_crdJson = crds->first();
    m_crds->setCurrentIndex(-1);
    showLint();
    return true;
}

void LintPanel::setSelectedObject(const QString &key)
{
    m_object->setText(key);
}

void LintPanel::showLint()
{
    m_findings->setRowCount(0);
    m_verdicts->setRowCount(0);
    QStringList summary;
    for (const auto &result : m_report.lint) {
        for (const auto &finding : result.findings) {
            const int row = m_findings->rowCount();
            m_findings->insertRow(row);
            m_findings->setItem(row, 0, item(lint::severityName(finding.severity)));
            m_findings->setItem(row, 1, item(finding.id));
            m_findings->setItem(row, 2, item(finding.path));
            m_findings->setItem(row, 3, item(finding.message));
        }
        summary << (result.clean()
                        ? tr("%1: clean, the Spec/Status boundary holds").arg(result.crdName)
                        : tr("%1: %2 error(s), %3 warning(s), %4 info")
                              .arg(result.crdName)
                              .arg(result.count(lint::Severity::Error))
                              .arg(result.count(lint::Severity::Warning))
                              .arg(result.count(lint::Severity::Info)));
    }
    m_findings->resizeColumnsToContents();
    m_findings->horizontalHeader()->setStretchLastSection(true);
    m_status->setText(summary.join(u'\n'));
    updateLiveButton();
    emit lintFinished();
}

void LintPanel::updateLiveButton()
{
    const auto refusal = m_session->writeRefusal();
    const bool running = m_check && m_check->isRunning();
    m_live->setEnabled(!refusal && m_crdJson.has_value() && !running);
    m_live->setToolTip(
        refusal ? tr("Dry-run writes are still writes: %1.").arg(refusal->message)
                : tr("Server-side dry run (dryRun=All): the API server runs the writes and stores "
                     "nothing."));
}

void LintPanel::runLiveCheck()
{
    if (const auto refusal = m_session->writeRefusal()) {
        m_status->setText(tr("Live check refused: %1.").arg(refusal->message));
        return;
    }
    if (!m_crdJson || !m_session->client()) {
        m_status->setText(tr("Pick a CRD first."));
        return;
    }
    QString ns;
    QString name = m_object->text().trimmed();
    if (const qsizetype slash = name.indexOf(u'/'); slash >= 0) {
        ns = name.left(slash);
        name = name.mid(slash + 1);
    }
    delete m_check;
    m_check = new lint::BoundaryCheck(m_session->client(), this);
    connect(m_check,
            &lint::BoundaryCheck::finished,
            this,
            [this](const lint::BoundaryCheckResult &result) { handleLiveFinished(result); });
    m_status->setText(tr("Running the live check (dry run)…"));
    m_check->start(*m_crdJson, ns, name);
    updateLiveButton();
}

void LintPanel::handleLiveFinished(const lint::BoundaryCheckResult &result)
{
    m_report.live = result;
    showVerdicts();
    updateLiveButton();
    emit liveCheckFinished(result.passed());
}

void LintPanel::showVerdicts()
{
    m_verdicts->setRowCount(0);
    if (!m_report.live)
        return;
    const auto &live = *m_report.live;
    for (const auto &verdict : live.verdicts) {
        const int row = m_verdicts->rowCount();
        m_verdicts->insertRow(row);
        const QString proof = tr("Expected: %1\n%2 %3 %4\n→ %5 %6")
                                  .arg(verdict.expectation,
                                       verdict.request.method,
                                       verdict.request.url,
                                       verdict.request.body)
                                  .arg(verdict.response.code)
                                  .arg(QString::fromStdString(verdict.response.fields.dump()));
        auto *mark = item(verdict.pass ? tr("PASS") : tr("FAIL"), proof);
        mark->setForeground(verdict.pass ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        m_verdicts->setItem(row, 0, mark);
        m_verdicts->setItem(row, 1, item(verdict.id, proof));
        m_verdicts->setItem(row, 2, item(verdict.observed, proof));
    }
    m_verdicts->resizeColumnsToContents();
    m_verdicts->horizontalHeader()->setStretchLastSection(true);
    if (!live.error.isEmpty())
        m_status->setText(tr("Live check could not run: %1").arg(live.error));
    else
        m_status->setText(
            live.passed()
                ? tr("Live check of %1/%2: the boundary holds.").arg(live.ns, live.name)
                : tr("Live check of %1/%2: the boundary does not hold.").arg(live.ns, live.name));
}

bool LintPanel::exportReport(const QString &path)
{
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_status->setText(tr("%1: cannot write: %2").arg(path, out.errorString()));
        return false;
    }
    const QByteArray bytes = path.endsWith(u".md") || path.endsWith(u".markdown")
        ? lint::reportMarkdown(m_report).toUtf8()
        : QByteArray::fromStdString(lint::reportJson(m_report).dump(2)) + '\n';
    const bool ok = out.write(bytes) == bytes.size();
    m_status->setText(ok ? tr("Report written to %1.").arg(path)
                         : tr("%1: cannot write: %2").arg(path, out.errorString()));
    return ok;
}

} // namespace reconscope::ui
