#pragma once

#include "controller/fieldowner/fieldhistory.h"

#include <nlohmann/json.hpp>

#include <QHash>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
class QTableWidget;
class QTimer;

namespace reconscope::controller::console {
class DryRunPlanner;
}

namespace reconscope::controller::operators {
struct PlannedWrite;
}

namespace reconscope::models {
class ConditionsModel;
class OwnedObjectsModel;
class PlannedChangesModel;
class TransitionTimelineModel;
} // namespace reconscope::models

namespace reconscope::controller::console {
class ConsoleSession;
}

namespace reconscope::ui {

class FieldHistoryView;
class FieldsPanel;
class ExplainPanel;

// Everything about one object: a header (name, state, reason), spec and status side by side, the
// conditions table (lastTransitionTime, observedGeneration), the object's transition timeline,
// the raw JSON, its Events (core/v1, fieldSelector involvedObject), the objects it owns
// (Deployments, ReplicaSets, Pods through ownerReferences, with their status), who owns each field
// (managedFields, the Fields tab) and, for CustomApps,
// a dry run: what the reconciler would write now, as a diff. Follows the session: the shown object
// is refreshed when a batch changes it.
class DetailPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DetailPane)

public:
    explicit DetailPane(controller::console::ConsoleSession *session, QWidget *parent = nullptr);
    ~DetailPane() override;

    void showObject(const QString &key);
    QString objectKey() const { return m_key; }

    QTabWidget *tabs() const { return m_tabs; }
    QLabel *header() const { return m_header; }
    QPlainTextEdit *specView() const { return m_spec; }
    QPlainTextEdit *statusView() const { return m_status; }
    QPlainTextEdit *rawView() const { return m_raw; }
    models::ConditionsModel *conditionsModel() const { return m_conditions; }
    models::TransitionTimelineModel *timelineModel() const { return m_timeline; }
    QTableWidget *eventsTable() const { return m_events; }
    FieldsPanel *fieldsPanel() const { return m_fields; }
    // The field changes of the shown object, beside its transitions (Timeline tab). The pane
    // follows the objects it showed (the last few) and records their changes while they last.
    FieldHistoryView *fieldHistoryView() const { return m_fieldHistoryView; }
    void refreshEvents();
    // Lists Deployments, ReplicaSets and Pods of the object's namespace and keeps those it owns.
    void refreshOwned();
    // Runs the reconciler in dry-run mode for the object (CustomApps only).
    void planDryRun();
    models::OwnedObjectsModel *ownedModel() const { return m_owned; }
    models::PlannedChangesModel *dryRunModel() const { return m_dryRun; }
    QLabel *dryRunLabel() const { return m_dryRunLabel; }
    QPlainTextEdit *dryRunText() const { return m_dryRunText; }
    // Shows a tab by its (untranslated) name: overview, timeline, raw, fields, events, owned,
    // dryrun, explain.
    bool showTab(const QString &name);
    // "Why?": the object's causes ranked (tab "explain").
    ExplainPanel *explainPanel() const { return m_explain; }

signals:
    void eventsLoaded(int count);
    void ownedLoaded(int count);
    void dryRunPlanned(int changes);

private:
    // The constructor's tab pages (the owned and dry-run pages are members already).
    QWidget *buildOverviewPage();
    QWidget *buildEventsPage();
    void buildOwnedPage();
    void buildDryRunPage();
    void refresh();
    void handleObjectsChanged(const QStringList &upserted, const QStringList &removed);
    void handlePlanned(const QString &key,
                       const QList<reconscope::controller::operators::PlannedWrite> &writes,
                       const QString &outcome);
    void scheduleLiveRefresh();

    controller::console::ConsoleSession *m_session;
    QString m_key;
    QLabel *m_header;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_spec;
    QPlainTextEdit *m_status;
    QPlainTextEdit *m_raw;
    FieldsPanel *m_fields;
    controller::fieldowner::FieldHistories m_fieldHistories;
    FieldHistoryView *m_fieldHistoryView;
    models::ConditionsModel *m_conditions;
    models::TransitionTimelineModel *m_timeline;
    QTableWidget *m_events;
    quint64 m_eventsRequest = 0;
    models::OwnedObjectsModel *m_owned;
    QLabel *m_ownedLabel;
    quint64 m_ownedRequest = 0;
    QHash<QString, nlohmann::json> m_ownedByPath; // request path -> object, for diffs
    models::PlannedChangesModel *m_dryRun;
    QLabel *m_dryRunLabel;
    QPlainTextEdit *m_dryRunText;
    controller::console::DryRunPlanner *m_planner = nullptr;
    QWidget *m_ownedPage;
    QWidget *m_dryRunPage;
    QTimer *m_liveTimer;
    ExplainPanel *m_explain;
};

} // namespace reconscope::ui
