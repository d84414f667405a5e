#pragma once

#include <QChartView>
#include <QList>
#include <QString>

class QDateTimeAxis;
class QLineSeries;
class QValueAxis;

namespace sbw {

/// One live line chart of the graph pane: time of day on the x axis (hh:mm:ss), a value
/// axis starting at 0 whose title carries the unit ("CPU, %"), spans in which the sandbox was
/// halted shaded grey with their state written on them, and a tooltip with the exact value of
/// the nearest point when the mouse is over a line. The legend shows when there are two lines
/// or more.
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

    /// `unit` is appended to the axis title and to tooltip values ("%", "MiB", "KiB/s").
    GraphPaneChart(const QString& title, const QString& quantity, const QString& unit,
                   QWidget* parent = nullptr);

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
    void setSpans(const QList<Span>& spans);
    const QList<Span>& spans() const { return m_spans; }

    /// The tooltip text for `line`'s point nearest to time `xMs`: "name: 12.3 unit at hh:mm:ss".
    QString tooltipText(const QLineSeries* line, qreal xMs) const;

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    QString m_quantity;
    QString m_unit;
    QDateTimeAxis* m_timeAxis;
    QValueAxis* m_valueAxis;
    QList<QLineSeries*> m_lines;
    QList<Span> m_spans;
};

} // namespace sbw
