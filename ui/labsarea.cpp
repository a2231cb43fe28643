#include "ui/labsarea.h"

#include "controller/console/consolesession.h"
#include "ui/conflictlabpanel.h"
#include "ui/lintpanel.h"
#include "ui/logpane.h"
#include "ui/patchlabpanel.h"
#include "ui/rawapiconsole.h"

#include <QAction>
#include <QScrollArea>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

LabsArea::LabsArea(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_tabs(new QTabWidget(this))
    , m_patchLab(new PatchLabPanel(session, this))
    , m_rawApi(new RawApiConsole(session, this))
    , m_conflictLab(new ConflictLabPanel(session, this))
    , m_lint(new LintPanel(session, this))
    , m_log(new LogPane(this))
{
    setWindowTitle(tr("Labs"));
    setObjectName(u"labs"_s);
    m_tabs->setDocumentMode(true);
    m_tabs->tabBar()->setElideMode(Qt::ElideNone);
    m_tabs->tabBar()->setExpanding(false);
    addLab(m_patchLab, u"patch"_s);
    addLab(m_rawApi, u"raw"_s);
    addLab(m_conflictLab, u"conflict"_s);
    addLab(m_lint, u"lint"_s);
    addLab(m_log, u"log"_s);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
}

LabsArea::~LabsArea() = default;

void LabsArea::addLab(QWidget *panel, const QString &shortName)
{
    panel->setObjectName(shortName);
    m_shortNames.append({ shortName, panel });
    QWidget *page = panel;
    if (panel->minimumSizeHint().width() > MaxTabMinimumWidth) {
        auto *scroll = new QScrollArea(m_tabs);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(panel);
        page = scroll;
    }
    m_tabs->addTab(page, panel->windowTitle());

    const int number = int(m_showActions.size()) + 1;
    auto *action = new QAction(panel->windowTitle(), this);
    action->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_0 + number)));
    action->setToolTip(tr("Show the %1 in the Labs workspace").arg(panel->windowTitle()));
    connect(action, &QAction::triggered, this, [this, panel] {
        showPanel(panel);
        emit showRequested();
    });
    m_showActions.append(action);
}

bool LabsArea::showPanel(QWidget *panel)
{
    for (int i = 0; i < m_tabs->count(); ++i) {
        QWidget *page = m_tabs->widget(i);
        auto *scroll = qobject_cast<QScrollArea *>(page);
        if (page == panel || (scroll && scroll->widget() == panel)) {
            m_tabs->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

QWidget *LabsArea::panelNamed(const QString &name) const
{
    for (const auto &[shortName, panel] : m_shortNames) {
        if (name.compare(shortName, Qt::CaseInsensitive) == 0
            || name.compare(panel->windowTitle(), Qt::CaseInsensitive) == 0)
            return panel;
    }
    if (name.compare(u"boundary"_s, Qt::CaseInsensitive) == 0)
        return m_lint;
    return nullptr;
}

void LabsArea::setSelectedObject(const QString &key)
{
    m_patchLab->setSelectedObject(key);
    m_rawApi->setSelectedObject(key);
    m_lint->setSelectedObject(key);
}

} // namespace reconscope::ui
