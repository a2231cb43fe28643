#pragma once

#include "models/stategraphstats.h"
#include "models/transitionlog.h"

#include <QDateTime>
#include <QGraphicsScene>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace reconscope::ui {

class GraphEdgeItem;
class GraphNodeItem;

// An edge of the state graph: from -> to, [*] (nullopt) as start or end.
struct GraphEdge
{
    models::StateNode from;
    models::StateNode to;
    friend bool operator==(const GraphEdge &, const GraphEdge &) = default;
};

// The live state graph as the seed draws it: [*] -> Pending -> Reconciling <-> Ready / Degraded,
// Ready -> Terminating -> [*], each node with its object count, its census (objects found there
// when the watch connected: no transition, no edge) and time-in-state, each edge with its counter
// of live moves and, apart, of moves found across a watch gap. Off-design transitions appear as
// dashed red edges, flagged in their label; moves across a gap off the designed edges along a
// path of them, as dotted grey ones. An
// object's move is animated along its edge; a selected object's path and current node are
// highlighted. Aggregate mode counts a whole resource, object mode only the selected object.
class StateGraphScene final : public QGraphicsScene
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StateGraphScene)

public:
    enum class Mode { Aggregate, Object };
    static constexpr int AnimationMs = 700;
    static constexpr int MaxAnimations = 64; // more at once are counted, not animated

    explicit StateGraphScene(QObject *parent = nullptr);
    ~StateGraphScene() override;

    // Aggregate figures of a resource (counts, edge counters, time in state until `now`).
    void setStatistics(const models::StateGraphStats &stats, const QDateTime &now);
    // The selected object: its retained history (oldest first) and current state. An empty key
    // clears the selection.
    void setSelectedObject(const QString &key,
                           const QList<models::Transition> &history,
                           std::optional<models::LifecycleState> current);
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    // Animates a dot along the transition's edge (creating an off-design edge when needed).
    void animateTransition(const models::Transition &transition);

    // What is drawn, for tests and tooltips.
    bool hasEdge(const GraphEdge &edge) const;
    bool isEdgeOnDesign(const GraphEdge &edge) const;
    // Shown and drawn as breaking the design (dashed red, "⚠").
    bool isEdgeAlarming(const GraphEdge &edge) const;
    qint64 edgeGapCounter(const GraphEdge &edge) const; // moves across a gap shown on the edge
    int nodeCensus(models::LifecycleState state) const; // "N at connect" in the node
    bool isEdgeHighlighted(const GraphEdge &edge) const;
    qint64 edgeCounter(const GraphEdge &edge) const; // the number shown on the edge
    int nodeCounter(models::LifecycleState state) const; // the number shown in the node
    QString nodeTimeText(models::LifecycleState state) const;
    std::optional<models::LifecycleState> highlightedNode() const;
    QList<GraphEdge> animatingEdges() const;
    // Scene position of the moving dot of the edge's oldest animation (for tests).
    std::optional<QPointF> animationPosition(const GraphEdge &edge) const;

    bool exportSvg(const QString &fileName);
    bool exportPng(const QString &fileName, qreal scale = 2.0);
    // The rectangle exports and "fit to view" use.
    QRectF contentRect() const;

signals:
    void animationFinished();

private:
    GraphNodeItem *node(models::StateNode node) const;
    GraphEdgeItem *edge(const GraphEdge &edge) const;
    GraphEdgeItem *ensureEdge(const GraphEdge &edge);
    void refresh();
    void layoutEdge(GraphEdgeItem *item);

    Mode m_mode = Mode::Aggregate;
    GraphNodeItem *m_start;
    GraphNodeItem *m_end;
    QMap<int, GraphNodeItem *> m_states;
    QList<GraphEdgeItem *> m_edges;
    // Aggregate figures.
    std::array<int, models::LifecycleStateCount> m_counts{};
    std::array<int, models::LifecycleStateCount> m_census{};
    std::array<QString, models::LifecycleStateCount> m_times{};
    QHash<int, qint64> m_edgeCounts; // edgeKey -> count
    QHash<int, qint64> m_gapEdgeCounts; // edgeKey -> count of moves across a gap
    // The selected object.
    QString m_selectedKey;
    QList<models::Transition> m_selectedHistory;
    std::optional<models::LifecycleState> m_selectedState;
    struct Animation;
    QList<Animation *> m_animations;
};

} // namespace reconscope::ui
