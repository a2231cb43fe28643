#pragma once

#include "controller/kube/discovery.h"

#include <QWidget>

class QTreeWidget;
class QTreeWidgetItem;

namespace reconscope::controller::console {
class ConsoleSession;
class CrdOverview;
} // namespace reconscope::controller::console

namespace reconscope::ui {

// The custom resources of the cluster by API group (from discovery's CRD watch, live), with the
// object count per lifecycle state of the watched resource. Activating a resource watches it.
class ResourceBrowser final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResourceBrowser)

public:
    explicit ResourceBrowser(controller::console::ConsoleSession *session,
                             QWidget *parent = nullptr);
    ~ResourceBrowser() override;

    QTreeWidget *tree() const { return m_tree; }
    // The tree from these resources (exposed for tests; the session's discovery calls it).
    void setResources(const QList<controller::kube::DiscoveredResource> &resources);
    // "3 Pending · 1 Ready" for the watched resource.
    QString countsText() const;
    QTreeWidgetItem *itemFor(const QString &qualifiedName) const;
    // The overview whose counts the resources not watched show (per state, collapsed); none by
    // default.
    void setOverview(controller::console::CrdOverview *overview);

private:
    void handleDiscovery();
    void refreshCounts();
    void activate(QTreeWidgetItem *item);

    controller::console::ConsoleSession *m_session;
    QTreeWidget *m_tree;
    QList<controller::kube::DiscoveredResource> m_resources;
    controller::console::CrdOverview *m_overview = nullptr;
};

} // namespace reconscope::ui
