// The Resources pane over libvirt's test driver (no VM, no CPU figures): twelve sandboxes, of
// which the host chart draws five and groups the rest in one line; a sandbox paused,
// hibernated and shut off in turn gets three adjacent bands whose labels do not cover each
// other; every chart's legend names each of its lines and every title fits. Saves the window
// with the Resources dock at 1280x800 and 1920x1080 to $SBW_SCREENSHOT_DIR when it is set.

#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "stats/GraphPane.h"
#include "stats/GraphPaneChart.h"
#include "stats/StatsSampler.h"
#include "window/MainWindow.h"
#include "workbench/Workbench.h"

#include <QAbstractAxis>
#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTextDocument>
#include <QtTest>
#include <libvirt/libvirt.h>

using namespace std::chrono_literals;

namespace {

constexpr int kSandboxes = 12;

QString sandboxName(int i)
{
    return QStringLiteral("sbw-run-20261203-0900%1-c0de").arg(i, 2, 10, QLatin1Char('0'));
}

/// Defines and starts a domain that carries the workbench's metadata, so it is sampled.
void startSandbox(virConnectPtr conn, const QString& name)
{
    const QString xml =
        QStringLiteral("<domain type='test'><name>%1</name><memory unit='MiB'>512</memory>"
                       "<vcpu>2</vcpu><os><type>hvm</type></os><metadata><sbw:sandbox "
                       "xmlns:sbw='%2'><sbw:kind>ephemeral</sbw:kind></sbw:sandbox></metadata>"
                       "</domain>")
            .arg(name, QLatin1String(sbw::kMetadataNamespace));
    virDomainPtr domain = virDomainDefineXML(conn, xml.toUtf8().constData());
    QVERIFY(domain);
    QCOMPARE(virDomainCreate(domain), 0);
    virDomainFree(domain);
}

/// What a person reads in a chart's legend.
QString legendText(const sbw::GraphPaneChart* chart)
{
    QTextDocument document;
    document.setHtml(chart->legend()->text());
    return document.toPlainText();
}

} // namespace

class TestGraphPaneStates : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Workbench> m_workbench;
    std::unique_ptr<sbw::MainWindow> m_window;
    sbw::GraphPane* m_pane = nullptr;

    /// Waits until the pane has shown `count` more ticks.
    void waitTicks(int count)
    {
        QSignalSpy ticks(m_window->sampler(), &sbw::StatsSampler::sampled);
        QTRY_VERIFY_WITH_TIMEOUT(ticks.size() >= count, 20000);
    }

    void saveScreenshot(const QSize& size)
    {
        const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR");
        if (dir.isEmpty())
            return;
        m_window->resize(size);
        waitTicks(2);
        QVERIFY(m_window->grab().save(QStringLiteral("%1/resources-%2x%3.png")
                                          .arg(dir)
                                          .arg(size.width())
                                          .arg(size.height())));
        // The dock shows the first row of charts; its scrolled-away second row too.
        QVERIFY(m_pane->findChild<QScrollArea*>()->widget()->grab().save(
            QStringLiteral("%1/resources-charts-%2x%3.png")
                .arg(dir)
                .arg(size.width())
                .arg(size.height())));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection =
            std::make_unique<sbw::HypervisorConnection>(QStringLiteral("test:///default"));
        QVERIFY(m_connection->ensureOpen().ok());
        for (int i = 1; i <= kSandboxes; ++i)
            startSandbox(m_connection->handle(), sandboxName(i));
        m_workbench = std::make_unique<sbw::Workbench>(m_connection.get());
        m_window = std::make_unique<sbw::MainWindow>(m_workbench.get());
        m_window->resize(1280, 800);
        m_window->show();
        m_window->findChild<QDockWidget*>(QStringLiteral("resourceDock"))->show();
        m_pane = m_window->graphPane();
    }

    void manySandboxesStayReadable()
    {
        auto* picker = m_pane->findChild<QComboBox*>();
        QTRY_COMPARE_WITH_TIMEOUT(picker->count(), kSandboxes, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(m_pane->hostChart()->lines().size(), 7, 20000);
        // No sandbox used CPU here: the first five seen (by name) keep their lines.
        QStringList expected{QStringLiteral("host")};
        for (int i = 1; i <= 5; ++i)
            expected.append(sandboxName(i));
        expected.append(QStringLiteral("7 others (busiest)"));
        QCOMPARE(m_pane->hostChart()->legendNames(), expected);
    }

    void legendsNameEverySeries()
    {
        waitTicks(2);
        const QList<sbw::GraphPaneChart*> charts{m_pane->cpuChart(), m_pane->memoryChart(),
                                                 m_pane->diskChart(), m_pane->networkChart(),
                                                 m_pane->hostChart()};
        for (const sbw::GraphPaneChart* chart : charts) {
            const QString title = chart->chart()->title();
            QVERIFY2(chart->legend()->isVisible(), qPrintable(title));
            const QString shown = legendText(chart);
            QStringList names;
            for (const QLineSeries* line : chart->lines()) {
                QVERIFY2(!line->name().isEmpty(), qPrintable(title));
                QVERIFY2(shown.contains(line->name()),
                         qPrintable(title + QStringLiteral(": ") + shown));
                names.append(line->name());
            }
            QCOMPARE(chart->legendNames(), names);
            // The legend is as tall as its wrapped text and lies inside the chart.
            const QLabel* legend = chart->legend();
            QCOMPARE(legend->height(), legend->heightForWidth(legend->width()));
            QCOMPARE(legend->geometry().bottom(), chart->rect().bottom());
            // The value axis's title fits the plot's height.
            const QAbstractAxis* axis = chart->chart()->axes(Qt::Vertical).constFirst();
            QVERIFY2(QFontMetrics(axis->titleFont()).horizontalAdvance(axis->titleText()) <
                         chart->chart()->plotArea().height(),
                     qPrintable(axis->titleText()));
            // The title fits the chart's width.
            const QFontMetrics metrics(chart->chart()->titleFont());
            QVERIFY2(metrics.horizontalAdvance(title) < chart->width() - 20,
                     qPrintable(QStringLiteral("%1: %2 px wide in %3 px")
                                    .arg(title)
                                    .arg(metrics.horizontalAdvance(title))
                                    .arg(chart->width())));
        }
        QCOMPARE(legendText(m_pane->diskChart()), QStringLiteral("━━ read   ━━ write"));
        QCOMPARE(legendText(m_pane->networkChart()), QStringLiteral("━━ received   ━━ sent"));
    }

    void adjacentBandsDoNotOverlap()
    {
        virDomainPtr domain =
            virDomainLookupByName(m_connection->handle(), qPrintable(sandboxName(kSandboxes)));
        QVERIFY(domain);
        char uuid[VIR_UUID_STRING_BUFLEN] = {};
        QCOMPARE(virDomainGetUUIDString(domain, uuid), 0);
        QVERIFY(m_pane->selectSandbox(QString::fromLatin1(uuid)));
        waitTicks(3);
        QCOMPARE(virDomainSuspend(domain), 0);
        waitTicks(3);
        QCOMPARE(virDomainManagedSave(domain, 0), 0);
        waitTicks(3);
        QCOMPARE(virDomainManagedSaveRemove(domain, 0), 0);
        waitTicks(3);
        virDomainFree(domain);

        for (const sbw::GraphPaneChart* chart : {m_pane->cpuChart(), m_pane->memoryChart()}) {
            const QList<sbw::GraphPaneChart::Span> spans = chart->spans();
            QCOMPARE(spans.size(), 3);
            QCOMPARE(spans[0].label, QStringLiteral("paused"));
            QCOMPARE(spans[1].label, QStringLiteral("hibernated"));
            QCOMPARE(spans[2].label, QStringLiteral("shut off"));
            QCOMPARE(spans[0].toMs, spans[1].fromMs);
            QCOMPARE(spans[1].toMs, spans[2].fromMs);
            // Each band is labelled once, and no label covers another.
            const QList<sbw::GraphPaneChart::SpanLabel> labels = chart->spanLabels();
            QCOMPARE(labels.size(), 3);
            for (int i = 0; i < labels.size(); ++i) {
                QCOMPARE(labels[i].text, spans[i].label);
                QVERIFY(chart->viewport()->rect().contains(labels[i].rect.toAlignedRect()));
                for (int j = i + 1; j < labels.size(); ++j)
                    QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                             qPrintable(labels[i].text + QStringLiteral(" / ") + labels[j].text));
            }
        }
        saveScreenshot(QSize(1280, 800));
        saveScreenshot(QSize(1920, 1080));
    }

    void touchingBandsOfOneStateMerge()
    {
        sbw::GraphPaneChart chart(QStringLiteral("CPU"), QStringLiteral("%"));
        chart.setSpans({{3000, 4000, QStringLiteral("paused")},
                        {1000, 2000, QStringLiteral("paused")},
                        {2000, 3000, QStringLiteral("paused")},
                        {4000, 5000, QStringLiteral("hibernated")}});
        QCOMPARE(chart.spans().size(), 2);
        QCOMPARE(chart.spans()[0].fromMs, qint64(1000));
        QCOMPARE(chart.spans()[0].toMs, qint64(4000));
        QCOMPARE(chart.spans()[1].label, QStringLiteral("hibernated"));
    }

    void goneSandboxSaysSo()
    {
        virDomainPtr domain = virDomainLookupByName(m_connection->handle(), qPrintable(sandboxName(1)));
        QVERIFY(domain);
        char uuid[VIR_UUID_STRING_BUFLEN] = {};
        QCOMPARE(virDomainGetUUIDString(domain, uuid), 0);
        QCOMPARE(virDomainDestroy(domain), 0);
        QCOMPARE(virDomainUndefine(domain), 0);
        virDomainFree(domain);
        auto* picker = m_pane->findChild<QComboBox*>();
        QTRY_VERIFY_WITH_TIMEOUT(picker->findData(QString::fromLatin1(uuid)) >= 0, 20000);
        const int index = picker->findData(QString::fromLatin1(uuid));
        QTRY_COMPARE_WITH_TIMEOUT(picker->itemText(index), sandboxName(1) + QStringLiteral(" (gone)"), 20000);
        int gone = 0;
        for (int i = 0; i < picker->count(); ++i)
            gone += picker->itemText(i).endsWith(QLatin1String(" (gone)")) ? 1 : 0;
        QCOMPARE(gone, 1); // the others still run
    }

    void cleanupTestCase()
    {
        m_window.reset();
        m_workbench.reset();
    }
};

QTEST_MAIN(TestGraphPaneStates)
#include "tst_graphpanestates.moc"
