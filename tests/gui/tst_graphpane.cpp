// The graph pane over a real microVM, booted once: series with points for a running sandbox,
// the CPU of a busy script, a paused span shaded and labelled, exact tooltips, the host
// overview's line per sandbox. Saves the rendering to $SBW_SCREENSHOT_DIR/graphpane.png when
// that variable is set.

#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "sandbox/Sandbox.h"
#include "stats/GraphPane.h"
#include "stats/GraphPaneChart.h"
#include "stats/StatsSampler.h"

#include <QLineSeries>
#include <QSignalSpy>
#include <QTest>
#include <libvirt/libvirt.h>

using namespace std::chrono_literals;

class TestGraphPane : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox;
    std::unique_ptr<sbw::StatsSampler> m_sampler;
    std::unique_ptr<sbw::GraphPane> m_pane;

    void waitTicks(int count)
    {
        QSignalSpy ticks(m_sampler.get(), &sbw::StatsSampler::sampled);
        while (ticks.size() < count)
            QVERIFY(ticks.wait(5000));
    }

    void exec(const QByteArray& command)
    {
        sbw::ExecRequest request;
        request.command = command;
        request.timeout = 60s;
        auto status = m_sandbox->session().exec(request);
        QVERIFY2(status.ok(), status ? "" : qPrintable(status.error().message));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        sbw::SandboxOptions options;
        options.vcpus = 2;
        auto sandbox = sbw::Sandbox::start(*m_connection, options);
        QVERIFY2(sandbox.ok(), sandbox ? "" : qPrintable(sandbox.error().message));
        m_sandbox = std::move(sandbox.value());
        auto ready = m_sandbox->waitReady(nullptr);
        QVERIFY2(ready.ok(), ready ? "" : qPrintable(ready.error().message));
        m_sampler = std::make_unique<sbw::StatsSampler>(m_connection.get());
        m_pane = std::make_unique<sbw::GraphPane>(m_sampler.get());
        m_pane->resize(1100, 800);
        m_pane->show();
        m_sampler->start();
    }

    void runningSandboxHasSeriesWithPoints()
    {
        waitTicks(3);
        QVERIFY(!m_pane->selectedSandbox().isEmpty());
        const QList<sbw::SandboxSample> history = m_sampler->history(m_pane->selectedSandbox());
        QCOMPARE(history.constLast().name, m_sandbox->domainName());
        const QList<QPointF> cpu = m_pane->cpuChart()->lines().at(0)->points();
        QVERIFY(cpu.size() >= 2);
        QCOMPARE(cpu.constLast().x(), qreal(history.constLast().timeMs));
        QCOMPARE(cpu.constLast().y(), *history.constLast().cpuPercent);
        QVERIFY(m_pane->memoryChart()->lines().at(0)->count() >= 3);
        // Beside the guest's view, what its QEMU process holds on the host: tens of MiB at least.
        const QList<QPointF> resident = m_pane->memoryChart()->lines().at(1)->points();
        QCOMPARE(resident.size(), history.size());
        QCOMPARE(resident.constLast().y(), *history.constLast().residentMiB);
        QVERIFY2(resident.constLast().y() > 20, qPrintable(QString::number(resident.constLast().y())));
        // All sandboxes of the last tick together, and the title with the latest figures.
        const sbw::HostSample host = m_sampler->hostHistory().constLast();
        double sum = 0;
        int counted = 0;
        for (const QString& uuid : m_sampler->sandboxes()) {
            const sbw::SandboxSample last = m_sampler->history(uuid).constLast();
            if (last.timeMs == host.timeMs && last.residentMiB) {
                sum += *last.residentMiB;
                ++counted;
            }
        }
        QCOMPARE(m_pane->hostMemoryChart()->lines().at(0)->points().constLast().y(), sum);
        QString title = counted == 1 ? QStringLiteral("Sandboxes' memory on the host: 1 holds %1 MiB").arg(qRound(sum))
                                     : QStringLiteral("Sandboxes' memory on the host: %1 hold %2 MiB").arg(counted).arg(qRound(sum));
        if (host.mergedMiB)
            title += QStringLiteral("; KSM saves %1 MiB").arg(qRound(*host.mergedMiB));
        QCOMPARE(m_pane->hostMemoryChart()->chart()->title(), title);
        QCOMPARE(m_pane->diskChart()->lines().size(), 2);
        QVERIFY(m_pane->diskChart()->lines().at(1)->count() >= 2);
        QVERIFY(m_pane->cpuChart()->spans().isEmpty());
        // Host overview: the host's line, then one per sandbox named after its domain; other
        // runs on this daemon may be sampled too, and past six sandboxes the rest share a line.
        const QStringList names = m_pane->hostChart()->legendNames();
        QCOMPARE(names.constFirst(), QStringLiteral("host"));
        const qsizetype sandboxes = m_sampler->sandboxes().size();
        if (sandboxes <= 6) {
            QCOMPARE(names.size(), sandboxes + 1);
            QVERIFY2(names.contains(m_sandbox->domainName()), qPrintable(names.join(", ")));
        } else {
            QCOMPARE(names.size(), 7);
            QCOMPARE(names.constLast(), QStringLiteral("%1 others (busiest)").arg(sandboxes - 5));
        }
    }

    void tooltipShowsExactValue()
    {
        const QLineSeries* line = m_pane->memoryChart()->lines().at(0);
        const QPointF last = line->points().constLast();
        const QString text = m_pane->memoryChart()->tooltipText(line, last.x() - 10);
        QCOMPARE(text,
                 QStringLiteral("used: %1 MiB at %2")
                     .arg(QString::number(last.y(), 'f', 1),
                          QDateTime::fromMSecsSinceEpoch(qint64(last.x())).toString("hh:mm:ss")));
    }

    void busyThenPausedIsShadedAndFlat()
    {
        exec("yes >/dev/null 2>&1 </dev/null & yes >/dev/null 2>&1 </dev/null & exit 0");
        waitTicks(8);
        // The chart plots exactly the sampler's figures (their range is tst_statssampler's job).
        const QList<QPointF> busy = m_pane->cpuChart()->lines().at(0)->points();
        const QList<sbw::SandboxSample> history = m_sampler->history(m_pane->selectedSandbox());
        QCOMPARE(busy.size(), history.size() - 1); // the first sample has no rate
        QCOMPARE(busy.constLast().y(), *history.constLast().cpuPercent);

        virDomainPtr domain = virDomainLookupByName(m_connection->handle(),
                                                    m_sandbox->domainName().toUtf8().constData());
        QVERIFY(domain);
        QCOMPARE(virDomainSuspend(domain), 0);
        waitTicks(6);
        const QList<sbw::GraphPaneChart::Span> spans = m_pane->cpuChart()->spans();
        QCOMPARE(spans.size(), 1);
        QCOMPARE(spans.constFirst().label, QStringLiteral("paused"));
        QVERIFY(spans.constFirst().toMs - spans.constFirst().fromMs >= 5000);
        QCOMPARE(m_pane->cpuChart()->lines().at(0)->points().constLast().y(), 0.0);
        QCOMPARE(m_pane->memoryChart()->spans().size(), 1);

        const QImage image = m_pane->grab().toImage();
        if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(image.save(dir + QStringLiteral("/graphpane.png")));
        // The shading is painted: a pixel inside the span is grey, not the chart's white.
        auto* view = m_pane->cpuChart();
        const QPointF inside = view->chart()->mapToPosition(
            QPointF(spans.constFirst().toMs - 1500, 50), view->lines().at(0));
        const QPoint pixel = view->mapTo(m_pane.get(), view->mapFromScene(inside));
        const QColor color = image.pixelColor(pixel);
        QVERIFY2(color.red() < 235 && qAbs(color.red() - color.blue()) < 20,
                 qPrintable(color.name()));

        QCOMPARE(virDomainResume(domain), 0);
        virDomainFree(domain);
        exec("pkill yes; exit 0");
    }

    void cleanupTestCase()
    {
        m_pane.reset();
        m_sampler.reset();
        m_sandbox.reset();
    }
};

QTEST_MAIN(TestGraphPane)
#include "tst_graphpane.moc"
