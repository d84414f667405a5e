#include "stats/GraphPaneChart.h"

#include <QCursor>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

namespace sbw {
namespace {

QChart* titledChart(const QString& title)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    return chart;
}

} // namespace

// The chart goes to QChartView's constructor: setChart() would only release the view's own
// default chart, never delete it (LeakSanitizer found about 1 MB of them in tst_mainwindow).
GraphPaneChart::GraphPaneChart(const QString& title, const QString& quantity, const QString& unit,
                               QWidget* parent)
    : QChartView(titledChart(title), parent), m_quantity(quantity), m_timeAxis(new QDateTimeAxis),
      m_valueAxis(new QValueAxis)
{
    m_timeAxis->setFormat(QStringLiteral("hh:mm:ss"));
    m_timeAxis->setTickCount(5);
    m_valueAxis->setMin(0);
    m_valueAxis->setLabelFormat(QStringLiteral("%.0f"));
    chart()->addAxis(m_timeAxis, Qt::AlignBottom);
    chart()->addAxis(m_valueAxis, Qt::AlignLeft);
    setRenderHint(QPainter::Antialiasing);
    setUnit(unit);
}

QLineSeries* GraphPaneChart::addLine(const QString& name, const QColor& color, bool dashed)
{
    auto* line = new QLineSeries;
    line->setName(name);
    QPen pen(color, 2);
    if (dashed)
        pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    chart()->addSeries(line);
    line->attachAxis(m_timeAxis);
    line->attachAxis(m_valueAxis);
    // Qt 6.4: a date-time axis draws no labels or grid once a series is attached while the chart
    // is in a view, until its ticks change; re-setting the tick count lays it out again.
    const int ticks = m_timeAxis->tickCount();
    m_timeAxis->setTickCount(ticks + 1);
    m_timeAxis->setTickCount(ticks);
    connect(line, &QLineSeries::hovered, this, [this, line](const QPointF& point, bool entered) {
        if (entered)
            QToolTip::showText(QCursor::pos(), tooltipText(line, point.x()), this);
        else
            QToolTip::hideText();
    });
    m_lines.append(line);
    chart()->legend()->setVisible(m_lines.size() > 1); // one line: the title names it
    return line;
}

void GraphPaneChart::clearLines()
{
    chart()->removeAllSeries();
    m_lines.clear();
}

void GraphPaneChart::setUnit(const QString& unit)
{
    m_unit = unit;
    m_valueAxis->setTitleText(m_quantity + QStringLiteral(", ") + unit);
}

void GraphPaneChart::setTimeRange(qint64 fromMs, qint64 toMs)
{
    m_timeAxis->setRange(QDateTime::fromMSecsSinceEpoch(fromMs),
                         QDateTime::fromMSecsSinceEpoch(toMs));
}

void GraphPaneChart::setValueMax(double max)
{
    m_valueAxis->setRange(0, max > 0 ? max : 1);
    m_valueAxis->applyNiceNumbers();
    m_valueAxis->setLabelFormat(m_valueAxis->max() < 10 ? QStringLiteral("%.1f")
                                                        : QStringLiteral("%.0f"));
}

void GraphPaneChart::setSpans(const QList<Span>& spans)
{
    m_spans = spans;
    viewport()->update();
}

QString GraphPaneChart::tooltipText(const QLineSeries* line, qreal xMs) const
{
    const QList<QPointF> points = line->points();
    if (points.isEmpty())
        return QString();
    auto it = std::lower_bound(points.begin(), points.end(), xMs,
                               [](const QPointF& p, qreal x) { return p.x() < x; });
    if (it == points.end() || (it != points.begin() && xMs - (it - 1)->x() < it->x() - xMs))
        --it;
    const QString time =
        QDateTime::fromMSecsSinceEpoch(qint64(it->x())).toString(QStringLiteral("hh:mm:ss"));
    return QStringLiteral("%1: %2 %3 at %4")
        .arg(line->name(), QString::number(it->y(), 'f', it->y() < 10 ? 2 : 1), m_unit, time);
}

void GraphPaneChart::drawForeground(QPainter* painter, const QRectF& rect)
{
    QChartView::drawForeground(painter, rect);
    if (m_spans.isEmpty() || m_lines.isEmpty())
        return;
    const QRectF plot = chart()->plotArea();
    painter->save();
    painter->setClipRect(plot);
    for (const Span& span : m_spans) {
        const qreal left =
            chart()->mapToPosition(QPointF(span.fromMs, 0), m_lines.constFirst()).x();
        const qreal right = chart()->mapToPosition(QPointF(span.toMs, 0), m_lines.constFirst()).x();
        const QRectF shade(
            QPointF(std::max(left, plot.left()), plot.top()),
            QPointF(std::min(std::max(right, left + 2), plot.right()), plot.bottom()));
        if (shade.width() <= 0)
            continue;
        painter->fillRect(shade, QColor(120, 120, 120, 70));
        // The label starts at the span and may run past a narrow one, but stays in the plot.
        const qreal width = painter->fontMetrics().horizontalAdvance(span.label);
        const qreal x = std::min(shade.left() + 3, plot.right() - width - 3);
        painter->setPen(QColor(70, 70, 70));
        painter->drawText(QPointF(x, plot.top() + painter->fontMetrics().ascent() + 2), span.label);
    }
    painter->restore();
}

} // namespace sbw
