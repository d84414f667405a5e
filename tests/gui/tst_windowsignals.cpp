// The real window (the sandbox-workbench program) ended by SIGTERM, as `kill` or a closing
// desktop session ends it: it closes as if the person had closed it, so its pre-booted microVM
// and that microVM's overlay are removed.

#include "TestEnvironment.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <libvirt/libvirt.h>

namespace {

/// Whether domain `name` on `uri` was paused by its owner (the pool's pre-booted microVM waits
/// so; a domain libvirt is still starting is paused too, for another reason).
bool isPaused(const QString& uri, const QString& name)
{
    virConnectPtr conn = virConnectOpen(uri.toUtf8().constData());
    if (!conn)
        return false;
    bool paused = false;
    if (virDomainPtr domain = virDomainLookupByName(conn, name.toUtf8().constData())) {
        int state = 0;
        int reason = 0;
        paused = virDomainGetState(domain, &state, &reason, 0) == 0 && state == VIR_DOMAIN_PAUSED
                 && reason == VIR_DOMAIN_PAUSED_USER;
        virDomainFree(domain);
    }
    virConnectClose(conn);
    return paused;
}

} // namespace

class TestWindowSignals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sigtermClosesTheWindowAndRemovesItsMicroVms()
    {
        const QString uri = sbw::test::guestUri();
        const QStringList before = sbw::test::runDomains(uri);
        const QStringList overlaysBefore = sbw::test::runOverlays(uri);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString script = dir.filePath(QStringLiteral("quick.py"));
        {
            QFile file(script);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("print('quick')\n");
        }
        QProcess window;
        window.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // The closing window keeps its layout in QSettings: in this folder, not the person's.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                           dir.filePath(QStringLiteral("config")));
        window.setProcessEnvironment(environment);
        window.start(QStringLiteral(SBW_GUI_BINARY), {QStringLiteral("--connect"), uri, QStringLiteral("--script"),
                                                      script, QStringLiteral("--run")});
        QVERIFY(window.waitForStarted());
        // The run boots a microVM; after it the window keeps the next one booted and paused.
        QString pooled;
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (const QString& name : sbw::test::runDomains(uri)) {
                    if (!before.contains(name) && isPaused(uri, name))
                        pooled = name;
                }
                return !pooled.isEmpty();
            },
            300000));

        window.terminate(); // SIGTERM
        QVERIFY(window.waitForFinished(60000));
        QCOMPARE(window.exitStatus(), QProcess::NormalExit);
        QCOMPARE(window.exitCode(), 0);
        // Neither the run's microVM nor the pre-booted one, nor their overlays, is left (the
        // window may have removed older orphan overlays: only new names count).
        for (const QString& name : sbw::test::runDomains(uri))
            QVERIFY2(before.contains(name), qPrintable(name));
        for (const QString& volume : sbw::test::runOverlays(uri))
            QVERIFY2(overlaysBefore.contains(volume), qPrintable(volume));
    }
};

QTEST_GUILESS_MAIN(TestWindowSignals)
#include "tst_windowsignals.moc"
