#include "ui/stategraphscene.h"

#include "models/lifecyclestate.h"
#include "ui/statepalette.h"

#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsEllipseItem>
#include <QGraphicsPathItem>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <QSvgGenerator>
#include <QVariantAnimation>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;

namespace reconscope::ui {

using models::LifecycleState;
using models::StateNode;

namespace {

constexpr QSizeF NodeSize(150, 84);
constexpr qreal PseudoRadius = 13;

// 0 = [*] as start, 1 = [*] as end, 2 + state.
int fromIndex(StateNode node)
{
    return node ? int(*node) + 2 : 0;
}
int toIndex(StateNode node)
{
    return node ? int(*node) + 2 : 1;
}
int edgeKey(const GraphEdge &edge)
{
    return fromIndex(edge.from) * 16 + toIndex(edge.to);
}

QString formatDuration(qint64 msecs)
{
    if (msecs < 1000)
        return u"%1 ms"_s.arg(msecs);
    if (msecs < 60'000)
        return u"%1 s"_s.arg(double(msecs) / 1000.0, 0, 'f', 1);
    if (msecs < 3'600'000)
        return u"%1 min"_s.arg(double(msecs) / 60'000.0, 0, 'f', 1);
    return u"%1 h"_s.arg(double(msecs) / 3'600'000.0, 0, 'f', 1);
}

QFont uiFont(qreal pointSize, bool bold)
{
    QFont font;
    font.setPointSizeF(pointSize);
    font.setBold(bold);
    return font;
}

} // namespace

// A lifecycle state (rounded box: name, count, census, time in state) or the [*] pseudo-state (a
// filled dot as start, a ringed dot as end).
class GraphNodeItem final : public QGraphicsItem
{
public:
    enum class Kind { Start, End, State };
    GraphNodeItem(Kind kind, LifecycleState state = LifecycleState::Unknown)
        : m_kind(kind)
        , m_state(state)
    {
        setZValue(2);
    }

    Kind kind() const { return m_kind; }
    LifecycleState state() const { return m_state; }

    QRectF boundingRect() const override
    {
        if (m_kind != Kind::State)
            return QRectF(
                -PseudoRadius - 4, -PseudoRadius - 4, 2 * PseudoRadius + 8, 2 * PseudoRadius + 8);
        return QRectF(QPointF(-NodeSize.width() / 2 - 4, -NodeSize.height() / 2 - 4),
                      NodeSize + QSizeF(8, 8));
    }

    // Where a line from the centre towards `direction` leaves the node.
    QPointF boundaryPoint(QPointF direction) const
    {
        const qreal length = std::hypot(direction.x(), direction.y());
        if (length < 1e-6)
            return pos();
        const QPointF unit = direction / length;
        if (m_kind != Kind::State)
            return pos() + unit * (PseudoRadius + 2);
        const qreal hw = NodeSize.width() / 2 + 2;
        const qreal hh = NodeSize.height() / 2 + 2;
        const qreal tx = std::abs(unit.x()) > 1e-6 ? hw / std::abs(unit.x()) : 1e9;
        const qreal ty = std::abs(unit.y()) > 1e-6 ? hh / std::abs(unit.y()) : 1e9;
        return pos() + unit * std::min(tx, ty);
    }

    void setFigures(int count, int census, const QString &time, bool highlighted)
    {
        if (count == m_count && census == m_census && time == m_time
            && highlighted == m_highlighted)
            return;
        m_count = count;
        m_census = census;
        m_time = time;
        m_highlighted = highlighted;
        update();
    }
    int count() const { return m_count; }
    int census() const { return m_census; }
    QString timeText() const { return m_time; }
    bool highlighted() const { return m_highlighted; }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        painter->setRenderHint(QPainter::Antialiasing);
        const QColor ink(0x21, 0x21, 0x21);
        if (m_kind != Kind::State) {
            const QColor ring = m_highlighted ? selectionColor() : ink;
            if (m_kind == Kind::End) {
                painter->setPen(QPen(ring, 2));
                painter->setBrush(Qt::white);
                painter->drawEllipse(QPointF(), PseudoRadius, PseudoRadius);
                painter->setPen(Qt::NoPen);
                painter->setBrush(ring);
                painter->drawEllipse(QPointF(), PseudoRadius - 5, PseudoRadius - 5);
            } else {
                painter->setPen(Qt::NoPen);
                painter->setBrush(ring);
                painter->drawEllipse(QPointF(), PseudoRadius - 2, PseudoRadius - 2);
            }
            return;
        }
        const StateColors colors = stateColors(m_state);
        const QRectF box(QPointF(-NodeSize.width() / 2, -NodeSize.height() / 2), NodeSize);
        painter->setPen(
            QPen(m_highlighted ? selectionColor() : colors.accent, m_highlighted ? 4 : 2));
        painter->setBrush(colors.fill);
        painter->drawRoundedRect(box, 12, 12);

        // Header band in the accent colour with the state's name.
        const QRectF header(box.left(), box.top(), box.width(), 26);
        QPainterPath band;
        band.addRoundedRect(box.adjusted(1, 1, -1, -1), 11, 11);
        QPainterPath clip;
        clip.addRect(header);
        painter->setPen(Qt::NoPen);
        painter->setBrush(colors.accent);
        painter->drawPath(band.intersected(clip));
        painter->setPen(colors.chipText);
        painter->setFont(uiFont(10, true));
        painter->drawText(header, Qt::AlignCenter, models::lifecycleStateName(m_state));

        painter->setPen(ink);
        painter->setFont(uiFont(15, true));
        const QRectF body(box.left(), header.bottom() + 1, box.width(), 26);
        painter->drawText(body, Qt::AlignCenter, QString::number(m_count));
        painter->setFont(uiFont(8, false));
        painter->setPen(QColor(0x42, 0x42, 0x42));
        // The census (found here at connect: no transition) apart from the moves.
        const QRectF censusLine(box.left(), body.bottom() - 2, box.width(), 15);
        if (m_census > 0)
            painter->drawText(
                censusLine, Qt::AlignCenter, QObject::tr("%1 at connect").arg(m_census));
        painter->drawText(
            QRectF(box.left(), censusLine.bottom() - 1, box.width(), 15), Qt::AlignCenter, m_time);
    }

private:
    Kind m_kind;
    LifecycleState m_state;
    int m_count = 0;
    int m_census = 0;
    QString m_time;
    bool m_highlighted = false;
};

// An edge with an arrow head and a counter label: the moves seen live, and apart those found
// across a watch gap ("+2 gap"). Off-design edges are dashed and red; an edge that only moves
// across a gap went along (a path of the designed graph, states unseen) is dotted and grey.
class GraphEdgeItem final : public QGraphicsPathItem
{
public:
    GraphEdgeItem(GraphEdge edge, bool onDesign, qreal offset, qreal bend)
        : m_edge(edge)
        , m_onDesign(onDesign)
        , m_reachable(models::isReachableByDesign(edge.from, edge.to))
        , m_offset(offset)
        , m_bend(bend)
    {
        setZValue(1);
    }

    const GraphEdge &edge() const { return m_edge; }
    bool onDesign() const { return m_onDesign; }
    // Moves along it break the design: seen live off the designed edges, or across a gap where
    // no path of them leads.
    bool alarming() const
    {
        return (!m_onDesign && m_counter > 0) || (!m_reachable && m_gapCounter > 0);
    }
    qreal offset() const { return m_offset; }
    qreal bend() const { return m_bend; }
    qint64 counter() const { return m_counter; }
    qint64 gapCounter() const { return m_gapCounter; }
    bool highlighted() const { return m_highlighted; }

    void setFigures(qint64 counter, qint64 gapCounter, bool highlighted)
    {
        if (counter == m_counter && gapCounter == m_gapCounter && highlighted == m_highlighted)
            return;
        if (counter != m_counter || gapCounter != m_gapCounter)
            prepareGeometryChange(); // the label's width follows the numbers
        m_counter = counter;
        m_gapCounter = gapCounter;
        m_highlighted = highlighted;
        update();
    }

    QString label() const
    {
        QString text = m_onDesign || m_counter > 0 ? QString::number(m_counter) : QString();
        if (m_gapCounter > 0)
            text += text.isEmpty() ? QObject::tr("%1 gap").arg(m_gapCounter)
                                   : QObject::tr(" +%1 gap").arg(m_gapCounter);
        return alarming() ? u"⚠ "_s + text : text;
    }

    // The counter's box with its centre at fraction `at` of the path (default: where it is).
    QRectF labelRect(std::optional<qreal> at = std::nullopt) const
    {
        const QFontMetricsF metrics(uiFont(9, true));
        const QSizeF size(metrics.horizontalAdvance(label()) + 14, metrics.height() + 4);
        const QPointF centre = path().pointAtPercent(at.value_or(m_labelAt));
        return QRectF(centre - QPointF(size.width() / 2, size.height() / 2), size);
    }
    // Off-design edges are curves that cross the diagram where nodes and the designed edges'
    // counters are: the scene moves their label along the curve to a free place.
    void setLabelAt(qreal at)
    {
        if (at == m_labelAt)
            return;
        prepareGeometryChange();
        m_labelAt = at;
    }

    QRectF boundingRect() const override
    {
        return QGraphicsPathItem::boundingRect()
            .adjusted(-12, -12, 12, 12)
            .united(labelRect().adjusted(-2, -2, 2, 2));
    }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        painter->setRenderHint(QPainter::Antialiasing);
        const bool alarm = alarming();
        const bool gapOnly = !m_onDesign && !alarm;
        const QColor colour = m_highlighted ? selectionColor()
            : alarm                         ? offDesignColor()
            : gapOnly                       ? QColor(0x78, 0x90, 0x9c)
                                            : QColor(0x45, 0x5a, 0x64);
        QPen pen(colour, m_highlighted ? 3.5 : 1.8);
        if (alarm)
            pen.setStyle(Qt::DashLine);
        else if (gapOnly)
            pen.setStyle(Qt::DotLine);
        painter->setPen(pen);
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(path());

        // Arrow head at the end.
        const QPointF tip = path().pointAtPercent(1.0);
        const qreal angle = path().angleAtPercent(0.99) * M_PI / 180.0;
        const QPointF back(-std::cos(angle), std::sin(angle));
        const QPointF side(-back.y(), back.x());
        QPolygonF head;
        head << tip << tip + back * 11 + side * 5 << tip + back * 11 - side * 5;
        painter->setPen(Qt::NoPen);
        painter->setBrush(colour);
        painter->drawPolygon(head);

        // The counter, in a pill.
        const QRectF rect = labelRect();
        painter->setPen(QPen(colour, 1.2));
        painter->setBrush(alarm ? QColor(0xff, 0xf3, 0xf3) : QColor(Qt::white));
        painter->drawRoundedRect(rect, rect.height() / 2, rect.height() / 2);
        painter->setFont(uiFont(9, true));
        painter->setPen(alarm ? offDesignColor().darker(130) : QColor(0x21, 0x21, 0x21));
        painter->drawText(rect, Qt::AlignCenter, label());
    }

private:
    GraphEdge m_edge;
    bool m_onDesign;
    bool m_reachable;
    qreal m_offset;
    qreal m_bend;
    qreal m_labelAt = 0.5;
    qint64 m_counter = 0;
    qint64 m_gapCounter = 0;
    bool m_highlighted = false;
};

struct StateGraphScene::Animation
{
    GraphEdge edge;
    QVariantAnimation *animation = nullptr;
    QGraphicsEllipseItem *dot = nullptr;
};

StateGraphScene::StateGraphScene(QObject *parent)
    : QGraphicsScene(parent)
    , m_start(new GraphNodeItem(GraphNodeItem::Kind::Start))
    , m_end(new GraphNodeItem(GraphNodeItem::Kind::End))
{
    setBackgroundBrush(Qt::white);
    addItem(m_start);
    addItem(m_end);
    // The seed's diagram, compact so that it stays legible in a panel of ~700 px.
    m_start->setPos(-40, 0);
    m_end->setPos(670, 170);
    const QList<QPair<LifecycleState, QPointF>> layout{
        { LifecycleState::Pending, { 120, 0 } },       { LifecycleState::Reconciling, { 320, 0 } },
        { LifecycleState::Degraded, { 520, 0 } },      { LifecycleState::Ready, { 320, 170 } },
        { LifecycleState::Terminating, { 520, 170 } }, { LifecycleState::Unknown, { 120, 170 } },
        { LifecycleState::NoLifecycle, { 120, 290 } },
    };
    for (const auto &[state, position] : layout) {
        auto *item = new GraphNodeItem(GraphNodeItem::Kind::State, state);
        item->setPos(position);
        addItem(item);
        m_states.insert(int(state), item);
    }
    using S = LifecycleState;
    // The designed edges; pairs in both directions run side by side.
    ensureEdge({ std::nullopt, S::Pending });
    ensureEdge({ S::Pending, S::Reconciling });
    ensureEdge({ S::Reconciling, S::Ready });
    ensureEdge({ S::Ready, S::Reconciling });
    ensureEdge({ S::Reconciling, S::Degraded });
    ensureEdge({ S::Degraded, S::Reconciling });
    ensureEdge({ S::Ready, S::Terminating });
    ensureEdge({ S::Terminating, std::nullopt });
    refresh();
}

StateGraphScene::~StateGraphScene()
{
    for (Animation *animation : std::as_const(m_animations)) {
        animation->animation->stop();
        delete animation->animation;
        delete animation;
    }
}

GraphNodeItem *StateGraphScene::node(StateNode node) const
{
    return node ? m_states.value(int(*node)) : nullptr;
}

GraphEdgeItem *StateGraphScene::edge(const GraphEdge &edge) const
{
    for (GraphEdgeItem *item : m_edges) {
        if (item->edge() == edge)
            return item;
    }
    return nullptr;
}

GraphEdgeItem *StateGraphScene::ensureEdge(const GraphEdge &edge)
{
    if (GraphEdgeItem *existing = this->edge(edge))
        return existing;
    const bool onDesign = models::isDesignedTransition(edge.from, edge.to);
    // A designed pair (Reconciling <-> Ready, Reconciling <-> Degraded) runs side by side;
    // off-design edges bend away so that they never hide a designed one (nor their reverse).
    const bool pairedByDesign
        = onDesign && edge.from && edge.to && models::isDesignedTransition(edge.to, edge.from);
    auto *item = new GraphEdgeItem(edge, onDesign, pairedByDesign ? 11 : 0, onDesign ? 0 : 110);
    addItem(item);
    m_edges.append(item);
    layoutEdge(item);
    return item;
}

void StateGraphScene::layoutEdge(GraphEdgeItem *item)
{
    const GraphEdge &edge = item->edge();
    GraphNodeItem *from = edge.from ? node(edge.from) : m_start;
    GraphNodeItem *to = edge.to ? node(edge.to) : m_end;
    const QPointF a = from->pos();
    const QPointF b = to->pos();
    QPointF direction = b - a;
    const qreal length = std::hypot(direction.x(), direction.y());
    const QPointF normal = length > 0 ? QPointF(-direction.y(), direction.x()) / length : QPointF();
    // Offsets to the right of the direction of travel keep a pair apart.
    const QPointF shift = normal * item->offset();
    QPainterPath path;
    if (item->bend() == 0) {
        const QPointF start = from->boundaryPoint(direction) + shift;
        const QPointF end = to->boundaryPoint(-direction) + shift;
        path.moveTo(start);
        path.lineTo(end);
    } else {
        const QPointF control = (a + b) / 2 + normal * (item->bend() + item->offset());
        const QPointF start = from->boundaryPoint(control - a);
        const QPointF end = to->boundaryPoint(control - b);
        path.moveTo(start);
        path.quadTo(control, end);
    }
    item->setPath(path);
    if (item->onDesign())
        return;
    // The off-design counter goes to the first place along its curve that covers no node and no
    // other counter (with room for three-digit counts).
    auto blocked = [this, item](const QRectF &rect) {
        const QRectF padded = rect.adjusted(-16, -4, 16, 4);
        for (const GraphNodeItem *n : std::as_const(m_states)) {
            if (n->sceneBoundingRect().intersects(padded))
                return true;
        }
        for (const GraphEdgeItem *other : std::as_const(m_edges)) {
            if (other != item && other->labelRect().intersects(padded))
                return true;
        }
        return false;
    };
    for (const qreal at : { 0.3, 0.5, 0.7, 0.4, 0.6 }) {
        if (!blocked(item->labelRect(at))) {
            item->setLabelAt(at);
            return;
        }
    }
    item->setLabelAt(0.3);
}

void StateGraphScene::setStatistics(const models::StateGraphStats &stats, const QDateTime &now)
{
    for (int i = 0; i < models::LifecycleStateCount; ++i) {
        const auto state = LifecycleState(i);
        m_counts[i] = stats.objectsIn(state);
        m_census[i] = stats.censusIn(state);
        // Mean time per visit: all time spent there over the visits whose start is known.
        const qint64 entries = stats.timedVisitsTo(state);
        const qint64 total = stats.msecsIn(state, now);
        m_times[i] = entries > 0
            ? tr("avg %1 · Σ %2").arg(formatDuration(total / entries), formatDuration(total))
            : QString();
    }
    m_edgeCounts.clear();
    m_gapEdgeCounts.clear();
    QList<StateNode> nodes{ std::nullopt };
    for (int i = 0; i < models::LifecycleStateCount; ++i)
        nodes.append(LifecycleState(i));
    for (const StateNode &from : nodes) {
        for (const StateNode &to : nodes) {
            if (!from && !to)
                continue;
            const qint64 count = stats.edgeCount(from, to);
            const qint64 gaps = stats.gapEdgeCount(from, to);
            if (count == 0 && gaps == 0)
                continue;
            if (count > 0)
                m_edgeCounts.insert(edgeKey({ from, to }), count);
            if (gaps > 0)
                m_gapEdgeCounts.insert(edgeKey({ from, to }), gaps);
            ensureEdge({ from, to });
        }
    }
    refresh();
}

void StateGraphScene::setSelectedObject(const QString &key,
                                        const QList<models::Transition> &history,
                                        std::optional<LifecycleState> current)
{
    m_selectedKey = key;
    m_selectedHistory = key.isEmpty() ? QList<models::Transition>() : history;
    m_selectedState = key.isEmpty() ? std::nullopt : current;
    // Its census entry is no move: no edge from [*].
    m_selectedHistory.removeIf([](const models::Transition &transition) {
        return transition.observed == models::Observed::AtConnect;
    });
    for (const models::Transition &transition : std::as_const(m_selectedHistory))
        ensureEdge({ transition.from, transition.to });
    refresh();
}

void StateGraphScene::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    refresh();
}

void StateGraphScene::refresh()
{
    QHash<int, qint64> pathCounts;
    for (const models::Transition &transition : std::as_const(m_selectedHistory))
        ++pathCounts[edgeKey({ transition.from, transition.to })];
    const bool objectMode = m_mode == Mode::Object;
    for (auto it = m_states.cbegin(); it != m_states.cend(); ++it) {
        const int state = it.key();
        const bool current = m_selectedState && int(*m_selectedState) == state;
        const int count = objectMode ? (current ? 1 : 0) : m_counts[state];
        const int census = objectMode ? 0 : m_census[state];
        const QString time = objectMode ? QString() : m_times[state];
        it.value()->setFigures(count, census, time, current);
        const bool optional = LifecycleState(state) == LifecycleState::Unknown
            || LifecycleState(state) == LifecycleState::NoLifecycle;
        bool used = m_counts[state] > 0 || current;
        for (GraphEdgeItem *edge : std::as_const(m_edges))
            used = used || (edge->edge().from && int(*edge->edge().from) == state)
                || (edge->edge().to && int(*edge->edge().to) == state);
        it.value()->setVisible(!optional || used);
    }
    const bool gone = !m_selectedKey.isEmpty() && !m_selectedState && !m_selectedHistory.isEmpty();
    m_end->setFigures(0, 0, {}, gone);
    m_start->setFigures(0, 0, {}, false);
    for (GraphEdgeItem *edge : std::as_const(m_edges)) {
        const int key = edgeKey(edge->edge());
        const qint64 count = objectMode ? pathCounts.value(key) : m_edgeCounts.value(key);
        const qint64 gaps = objectMode ? 0 : m_gapEdgeCounts.value(key);
        edge->setFigures(count, gaps, pathCounts.contains(key));
        // Off-design edges exist only while something went along them.
        edge->setVisible(edge->onDesign() || count > 0 || gaps > 0 || pathCounts.contains(key)
                         || m_edgeCounts.contains(key));
    }
}

void StateGraphScene::animateTransition(const models::Transition &transition)
{
    if (transition.observed == models::Observed::AtConnect)
        return; // the census: no move to show
    const GraphEdge key{ transition.from, transition.to };
    GraphEdgeItem *item = ensureEdge(key);
    item->setVisible(true);
    if (m_animations.size() >= MaxAnimations)
        return;
    auto *animation = new Animation;
    animation->edge = key;
    const QColor colour = transition.to ? stateColors(*transition.to).accent : QColor(Qt::black);
    animation->dot = addEllipse(QRectF(-9, -9, 18, 18), QPen(Qt::white, 2.5), colour);
    animation->dot->setZValue(3);
    animation->dot->setPos(item->path().pointAtPercent(0));
    animation->animation = new QVariantAnimation;
    animation->animation->setStartValue(0.0);
    animation->animation->setEndValue(1.0);
    animation->animation->setDuration(AnimationMs);
    animation->animation->setEasingCurve(QEasingCurve::InOutQuad);
    QObject::connect(animation->animation,
                     &QVariantAnimation::valueChanged,
                     this,
                     [this, animation](const QVariant &value) {
                         if (GraphEdgeItem *edge = this->edge(animation->edge))
                             animation->dot->setPos(edge->path().pointAtPercent(
                                 std::clamp(value.toDouble(), 0.0, 1.0)));
                     });
    QObject::connect(animation->animation, &QVariantAnimation::finished, this, [this, animation] {
        m_animations.removeOne(animation);
        removeItem(animation->dot);
        delete animation->dot;
        animation->animation->deleteLater();
        delete animation;
        emit animationFinished();
    });
    m_animations.append(animation);
    animation->animation->start();
}

bool StateGraphScene::hasEdge(const GraphEdge &edge) const
{
    const GraphEdgeItem *item = this->edge(edge);
    return item && item->isVisible();
}

bool StateGraphScene::isEdgeOnDesign(const GraphEdge &edge) const
{
    const GraphEdgeItem *item = this->edge(edge);
    return item && item->onDesign();
}

bool StateGraphScene::isEdgeAlarming(const GraphEdge &edge) const
{
    const GraphEdgeItem *item = this->edge(edge);
    return item && item->isVisible() && item->alarming();
}

qint64 StateGraphScene::edgeGapCounter(const GraphEdge &edge) const
{
    const GraphEdgeItem *item = this->edge(edge);
    return item ? item->gapCounter() : 0;
}

int StateGraphScene::nodeCensus(LifecycleState state) const
{
    return m_states.value(int(state))->census();
}

bool StateGraphScene::isEdgeHighlighted(const GraphEdge &edge) const
{
    const GraphEdgeItem *item = this->edge(edge);
    return item && item->highlighted();
}

qint64 StateGraphScene::edgeCounter(const GraphEdge &edge) const
{
    const GraphEdgeItem *item = this->edge(edge);
    return item ? item->counter() : 0;
}

int StateGraphScene::nodeCounter(LifecycleState state) const
{
    return m_states.value(int(state))->count();
}

QString StateGraphScene::nodeTimeText(LifecycleState state) const
{
    return m_states.value(int(state))->timeText();
}

std::optional<LifecycleState> StateGraphScene::highlightedNode() const
{
    for (auto it = m_states.cbegin(); it != m_states.cend(); ++it) {
        if (it.value()->highlighted())
            return LifecycleState(it.key());
    }
    return std::nullopt;
}

QList<GraphEdge> StateGraphScene::animatingEdges() const
{
    QList<GraphEdge> edges;
    for (const Animation *animation : m_animations)
        edges.append(animation->edge);
    return edges;
}

std::optional<QPointF> StateGraphScene::animationPosition(const GraphEdge &edge) const
{
    for (const Animation *animation : m_animations) {
        if (animation->edge == edge)
            return animation->dot->pos();
    }
    return std::nullopt;
}

QRectF StateGraphScene::contentRect() const
{
    QRectF rect;
    for (QGraphicsItem *item : items()) {
        if (item->isVisible())
            rect = rect.united(item->sceneBoundingRect());
    }
    return rect.adjusted(-24, -24, 24, 24);
}

bool StateGraphScene::exportSvg(const QString &fileName)
{
    const QRectF source = contentRect();
    QSvgGenerator generator;
    generator.setFileName(fileName);
    generator.setSize(source.size().toSize());
    generator.setViewBox(QRectF(QPointF(), source.size()));
    generator.setTitle(tr("Reconscope state graph"));
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    render(&painter, QRectF(QPointF(), source.size()), source);
    return painter.end();
}

bool StateGraphScene::exportPng(const QString &fileName, qreal scale)
{
    const QRectF source = contentRect();
    QImage image((source.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    render(&painter, QRectF(QPointF(), QSizeF(image.size())), source);
    painter.end();
    return image.save(fileName, "PNG");
}

} // namespace reconscope::ui
