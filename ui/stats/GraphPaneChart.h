#pragma once

#include <QChartView>
#include <QList>
#include <QString>

class QDateTimeAxis;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace sbw {

/// One live line chart of the graph pane: time of day on the x axis (hh:mm:ss), a value
/// axis starting at 0 titled with the unit ("%", "KiB/s"; the chart's title names the quantity,
/// and a longer axis title would be cut off in a short plot), spans in which the sandbox was
/// halted shaded grey with their state written on them, and a tooltip with the exact value of
/// the nearest point when the mouse is over a line.
///
/// The legend is a label under the plot that names every line beside a swatch of its colour
/// and wraps between entries; QChart's own legend squeezes its entries into one row and cuts
/// the names off, down to bare swatches. Span labels never cover each other: one that would
/// is written a line lower, and one with no free line left is not written.
class GraphPaneChart : public QChartView
{
    Q_OBJECT

public:
    /// A shaded span: [fromMs, toMs] in ms since the epoch, labelled e.g. "paused".
    struct Span
    {
        qint64 fromMs = 0;
        qint64 toMs = 0;
        QString label;
    };

    /// `unit` is the axis title and follows tooltip values ("%", "MiB", "KiB/s").
    GraphPaneChart(const QString& title, const QString& unit, QWidget* parent = nullptr);

    /// The chart's minimum height without its legend; the legend's wrapped lines add to it.
    void setMinimumChartHeight(int height);

    /// Adds a line (x: ms since the epoch, y: value in the chart's unit). `dashed` for totals.
    QLineSeries* addLine(const QString& name, const QColor& color, bool dashed = false);
    /// Removes every line.
    void clearLines();
    QList<QLineSeries*> lines() const { return m_lines; }

    /// Changes the unit (axis title and tooltips), e.g. from KiB/s to MiB/s as rates grow.
    void setUnit(const QString& unit);
    QString unit() const { return m_unit; }
    void setTimeRange(qint64 fromMs, qint64 toMs);
    /// Value axis from 0 to `max` (1 when max <= 0), rounded up to a number that gives round
    /// ticks.
    void setValueMax(double max);
    /// Spans in time order; touching or overlapping spans of one label are merged into one.
    void setSpans(QList<Span> spans);
    const QList<Span>& spans() const { return m_spans; }

    /// A span's label where it is drawn, in viewport coordinates.
    struct SpanLabel
    {
        QRectF rect;
        QString text;
    };
    /// The span labels as they are drawn at the current size, in span order.
    QList<SpanLabel> spanLabels() const;

    /// The legend under the plot (rich text: swatches and names).
    QLabel* legend() const { return m_legend; }
    /// The names the legend shows, in line order.
    QStringList legendNames() const;

    /// The tooltip text for `line`'s point nearest to time `xMs`: "name: 12.3 unit at hh:mm:ss".
    QString tooltipText(const QLineSeries* line, qreal xMs) const;

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void placeLegend();

    int m_minimumChartHeight = 0;
    QString m_unit;
    QDateTimeAxis* m_timeAxis;
    QValueAxis* m_valueAxis;
    QList<QLineSeries*> m_lines;
    QList<Span> m_spans;
    QLabel* m_legend;
};

} // namespace sbw
