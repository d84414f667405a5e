#include "stats/GraphPaneChart.h"

#include <QCursor>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLabel>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

namespace sbw {
namespace {

constexpr qreal kLabelPadding = 3;

QChart* titledChart(const QString& title)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->hide(); // the label under the view is the legend
    return chart;
}

/// A line's swatch in the legend: two box-drawing strokes, dashed for a dashed line.
QString legendSwatch(const QLineSeries* line)
{
    return line->pen().style() == Qt::SolidLine ? QStringLiteral("\u2501\u2501")
                                                : QStringLiteral("\u254d\u254d");
}

/// One legend entry as rich text: the swatch in the line's colour, then its name.
QString legendEntry(const QLineSeries* line)
{
    return QStringLiteral("<span style=\"color:%1\">%2</span>&nbsp;%3")
        .arg(line->pen().color().name(), legendSwatch(line), line->name().toHtmlEscaped());
}

/// `spans` in time order, touching or overlapping spans with one label merged.
QList<GraphPaneChart::Span> mergedSpans(QList<GraphPaneChart::Span> spans)
{
    std::stable_sort(spans.begin(), spans.end(),
                     [](const auto& a, const auto& b) { return a.fromMs < b.fromMs; });
    QList<GraphPaneChart::Span> merged;
    for (const GraphPaneChart::Span& span : spans) {
        if (!merged.isEmpty() && merged.constLast().label == span.label &&
            span.fromMs <= merged.constLast().toMs)
            merged.last().toMs = std::max(merged.constLast().toMs, span.toMs);
        else
            merged.append(span);
    }
    return merged;
}

} // namespace

// The chart goes to QChartView's constructor: setChart() would only release the view's own
// default chart, never delete it (LeakSanitizer found about 1 MB of them in tst_mainwindow).
GraphPaneChart::GraphPaneChart(const QString& title, const QString& unit, QWidget* parent)
    : QChartView(titledChart(title), parent), m_timeAxis(new QDateTimeAxis),
      m_valueAxis(new QValueAxis), m_legend(new QLabel(this))
{
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    m_legend->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    m_legend->setAutoFillBackground(true);
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
    connect(line, &QLineSeries::nameChanged, this, &GraphPaneChart::placeLegend);
    m_lines.append(line);
    placeLegend();
    return line;
}

void GraphPaneChart::clearLines()
{
    chart()->removeAllSeries();
    m_lines.clear();
    placeLegend();
}

QStringList GraphPaneChart::legendNames() const
{
    QStringList names;
    for (const QLineSeries* line : m_lines)
        names.append(line->name());
    return names;
}

void GraphPaneChart::setMinimumChartHeight(int height)
{
    m_minimumChartHeight = height;
    placeLegend();
}

// The legend's rows are laid out here, whole entries to a row: QLabel would also break a name
// at its hyphens. It sits in a bottom viewport margin as tall as its rows, and the chart grows
// by as much, so the plot keeps its room.
void GraphPaneChart::placeLegend()
{
    const QFontMetrics metrics(m_legend->font());
    const int room = width() - 2 * metrics.averageCharWidth();
    const int gapWidth = metrics.horizontalAdvance(QStringLiteral("   "));
    QStringList rows;
    QString row;
    int used = 0;
    for (const QLineSeries* line : m_lines) {
        const int entryWidth =
            metrics.horizontalAdvance(legendSwatch(line) + QLatin1Char(' ') + line->name());
        if (!row.isEmpty() && used + gapWidth + entryWidth > room) {
            rows.append(row);
            row.clear();
            used = 0;
        }
        if (!row.isEmpty()) {
            row += QStringLiteral("&nbsp;&nbsp;&nbsp;");
            used += gapWidth;
        }
        row += legendEntry(line);
        used += entryWidth;
    }
    rows.append(row);
    m_legend->setText(rows.join(QStringLiteral("<br>")));
    const int height = m_lines.isEmpty() ? 0 : m_legend->heightForWidth(width());
    setMinimumHeight(m_minimumChartHeight + height);
    setViewportMargins(0, 0, 0, height);
    m_legend->setGeometry(0, this->height() - height, width(), height);
    m_legend->setVisible(height > 0);
}

void GraphPaneChart::resizeEvent(QResizeEvent* event)
{
    placeLegend();
    QChartView::resizeEvent(event);
}

void GraphPaneChart::setUnit(const QString& unit)
{
    m_unit = unit;
    m_valueAxis->setTitleText(unit);
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

void GraphPaneChart::setSpans(QList<Span> spans)
{
    m_spans = mergedSpans(std::move(spans));
    viewport()->update();
}

QList<GraphPaneChart::SpanLabel> GraphPaneChart::spanLabels() const
{
    QList<SpanLabel> labels;
    if (m_lines.isEmpty())
        return labels;
    const QFontMetricsF metrics(font());
    const QRectF plot = mapFromScene(chart()->plotArea()).boundingRect();
    // Every line of the plot may hold labels but the lowest, where the lines near 0 run.
    const int rows = std::max(1, int(plot.height() / metrics.height()) - 1);
    QList<qreal> rowEnds; // right edge of the last label on each row
    for (const Span& span : m_spans) {
        const qreal left =
            mapFromScene(chart()->mapToPosition(QPointF(span.fromMs, 0), m_lines.constFirst())).x();
        const qreal right =
            mapFromScene(chart()->mapToPosition(QPointF(span.toMs, 0), m_lines.constFirst())).x();
        if (right < plot.left() || left > plot.right())
            continue;
        // A label starts at its span and may run past a narrow one, but stays in the plot.
        const qreal width = metrics.horizontalAdvance(span.label);
        const qreal x = std::max(plot.left() + kLabelPadding,
                                 std::min(std::max(left, plot.left()) + kLabelPadding,
                                          plot.right() - width - kLabelPadding));
        qsizetype row = 0;
        while (row < rowEnds.size() && rowEnds[row] + 2 * kLabelPadding > x)
            ++row;
        if (row == rows)
            continue; // no free line: the band stays shaded, unlabelled
        if (row == rowEnds.size())
            rowEnds.append(0);
        rowEnds[row] = x + width;
        labels.append({QRectF(x, plot.top() + 2 + row * metrics.height(), width, metrics.height()),
                       span.label});
    }
    return labels;
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
        if (shade.width() > 0)
            painter->fillRect(shade, QColor(120, 120, 120, 70));
    }
    painter->setFont(font());
    painter->setPen(QColor(70, 70, 70));
    const QFontMetricsF metrics(font());
    for (const SpanLabel& label : spanLabels()) {
        const QRectF inScene = mapToScene(label.rect.toAlignedRect()).boundingRect();
        painter->drawText(QPointF(inScene.left(), inScene.top() + metrics.ascent()), label.text);
    }
    painter->restore();
}

} // namespace sbw
