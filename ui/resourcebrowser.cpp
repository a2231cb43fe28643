#include "ui/resourcebrowser.h"

#include "controller/console/consolesession.h"
#include "controller/console/crdoverview.h"
#include "models/resourcetablemodel.h"
#include "ui/statepalette.h"

#include <QHeaderView>
#include <QMap>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using controller::console::ConsoleSession;

namespace {
constexpr int ResourceIndexRole = Qt::UserRole + 1;
} // namespace

ResourceBrowser::ResourceBrowser(ConsoleSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_tree(new QTreeWidget(this))
{
    setWindowTitle(tr("Resources"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({ tr("Custom resource"), tr("Objects") });
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setWordWrap(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);

    connect(m_tree, &QTreeWidget::itemActivated, this, &ResourceBrowser::activate);
    connect(m_session, &ConsoleSession::connected, this, [this] {
        if (m_session->discovery())
            connect(m_session->discovery(),
                    &controller::kube::DiscoveryClient::resourcesChanged,
                    this,
                    &ResourceBrowser::handleDiscovery);
    });
    connect(m_session, &ConsoleSession::objectsChanged, this, &ResourceBrowser::refreshCounts);
    connect(m_session, &ConsoleSession::trackerReset, this, &ResourceBrowser::refreshCounts);
    connect(m_session, &ConsoleSession::resourceChanged, this, &ResourceBrowser::refreshCounts);
}

ResourceBrowser::~ResourceBrowser() = default;

void ResourceBrowser::handleDiscovery()
{
    QList<controller::kube::DiscoveredResource> resources;
    for (const auto &served : controller::console::servedCustomResources(*m_session->discovery()))
        resources << served.resource;
    setResources(resources);
}

void ResourceBrowser::setOverview(controller::console::CrdOverview *overview)
{
    m_overview = overview;
    connect(overview,
            &controller::console::CrdOverview::countsChanged,
            this,
            &ResourceBrowser::refreshCounts);
    refreshCounts();
}

void ResourceBrowser::setResources(const QList<controller::kube::DiscoveredResource> &resources)
{
    m_resources = resources;
    m_tree->clear();
    QMap<QString, QTreeWidgetItem *> groups;
    for (int i = 0; i < m_resources.size(); ++i) {
        const auto &resource = m_resources[i];
        const QString groupName = resource.group.isEmpty() ? tr("core") : resource.group;
        QTreeWidgetItem *&group = groups[groupName];
        if (!group) {
            group = new QTreeWidgetItem(QStringList{ groupName });
            QFont font = group->font(0);
            font.setBold(true);
            group->setFont(0, font);
            group->setFlags(Qt::ItemIsEnabled);
        }
        auto *item = new QTreeWidgetItem(
            group, QStringList{ u"%1 (%2)"_s.arg(resource.kind, resource.version) });
        item->setData(0, ResourceIndexRole, i);
        item->setToolTip(0, resource.qualifiedName());
    }
    for (QTreeWidgetItem *group : std::as_const(groups))
        m_tree->addTopLevelItem(group);
    m_tree->sortItems(0, Qt::AscendingOrder);
    m_tree->expandAll();
    refreshCounts();
}

QTreeWidgetItem *ResourceBrowser::itemFor(const QString &qualifiedName) const
{
    for (int g = 0; g < m_tree->topLevelItemCount(); ++g) {
        QTreeWidgetItem *group = m_tree->topLevelItem(g);
        for (int c = 0; c < group->childCount(); ++c) {
            const int index = group->child(c)->data(0, ResourceIndexRole).toInt();
            if (m_resources.value(index).qualifiedName() == qualifiedName)
                return group->child(c);
        }
    }
    return nullptr;
}

QString ResourceBrowser::countsText() const
{
    const models::ResourceTableModel *model = m_session->tableModel();
    QStringList parts;
    for (int i = 0; i < models::LifecycleStateCount; ++i) {
        const int count = model->countIn(models::LifecycleState(i));
        if (count > 0)
            parts << u"%1 %2"_s.arg(count).arg(
                models::lifecycleStateName(models::LifecycleState(i)));
    }
    return parts.isEmpty() ? tr("no objects") : parts.join(u" · "_s);
}

void ResourceBrowser::refreshCounts()
{
    const QString watched = m_session->resource().qualifiedName();
    const models::ResourceTableModel *model = m_session->tableModel();
    for (int g = 0; g < m_tree->topLevelItemCount(); ++g) {
        QTreeWidgetItem *group = m_tree->topLevelItem(g);
        for (int c = 0; c < group->childCount(); ++c) {
            QTreeWidgetItem *item = group->child(c);
            const int index = item->data(0, ResourceIndexRole).toInt();
            const QString name = m_resources.value(index).qualifiedName();
            const bool active = name == watched;
            // The others from the overview, when there is one and it watches them.
            const bool overviewed = !active && m_overview && m_overview->resource(name);
            QFont font = item->font(0);
            font.setBold(active);
            item->setFont(0, font);
            const int objects
                = active ? model->rowCount() : (overviewed ? m_overview->objectCount(name) : -1);
            item->setText(1,
                          objects < 0
                              ? QString()
                              : (objects == 1 ? tr("1 object") : tr("%1 objects").arg(objects)));
            item->setToolTip(1, active ? countsText() : tr("Double-click to watch"));
            // Each resource counted lists its objects per state, one row each; the watched one
            // expanded.
            const bool wasExpanded = item->isExpanded();
            qDeleteAll(item->takeChildren());
            if (!active && !overviewed)
                continue;
            const auto overviewCounts = overviewed ? m_overview->counts(name)
                                                   : controller::console::CrdOverview::Counts{};
            for (int i = 0; i < models::LifecycleStateCount; ++i) {
                const auto state = models::LifecycleState(i);
                const int count = active ? model->countIn(state) : overviewCounts[i];
                if (count == 0)
                    continue;
                auto *row
                    = new QTreeWidgetItem(item,
                                          QStringList{ u"● "_s + models::lifecycleStateName(state),
                                                       QString::number(count) });
                row->setForeground(0, stateColors(state).accent);
                row->setFlags(Qt::ItemIsEnabled);
            }
            item->setExpanded(active || wasExpanded);
        }
    }
}

void ResourceBrowser::activate(QTreeWidgetItem *item)
{
    if (!item || !item->parent())
        return;
    const QVariant data = item->data(0, ResourceIndexRole);
    const int index = data.isValid() ? data.toInt() : -1; // state rows carry no index
    if (index < 0 || index >= m_resources.size())
        return;
    if (m_resources[index].qualifiedName() != m_session->resource().qualifiedName())
        m_session->setResource(m_resources[index]);
}

} // namespace reconscope::ui
