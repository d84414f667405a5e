// The serial console of one real microVM, through SerialConsoleView: the boot log, the console
// shell answering typed input, and the end of the stream when the domain is destroyed.

#include "TestEnvironment.h"
#include "hypervisor/ConsoleStream.h"
#include "hypervisor/HypervisorConnection.h"
#include "sandbox/Sandbox.h"
#include "terminal/SerialConsoleView.h"
#include "terminal/TerminalWidget.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>
#include <libvirt/libvirt.h>

namespace {

/// Everything the terminal holds: scrollback and screen.
QString allText(const sbw::TerminalWidget& terminal)
{
    QStringList lines;
    for (int i = 0; i < terminal.scrollbackCount(); ++i)
        lines.append(terminal.scrollbackLine(i));
    lines.append(terminal.screenText());
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestSerialConsole : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox;
    std::unique_ptr<sbw::SerialConsoleView> m_view;

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        auto opened = m_connection->ensureOpen();
        QVERIFY2(opened.ok(), opened ? "" : qPrintable(opened.error().message));
        auto sandbox = sbw::Sandbox::start(*m_connection, {});
        QVERIFY2(sandbox.ok(), sandbox ? "" : qPrintable(sandbox.error().message));
        m_sandbox = std::move(sandbox.value());
        // Attach at once, before the guest has printed anything, as the pane does.
        m_view = std::make_unique<sbw::SerialConsoleView>(*m_connection, m_sandbox->domainName());
        m_view->resize(800, 500);
        m_view->show();
        // An ephemeral run's domain keeps no console log: the view shows it from now on.
        QCOMPARE(m_view->statusText(),
                 QStringLiteral("console attached to %1; output from before it is not shown: "
                                "the domain keeps no console log")
                     .arg(m_sandbox->domainName()));
        QVERIFY(m_view->isAttached());
    }

    void showsTheBootLog()
    {
        QTRY_VERIFY_WITH_TIMEOUT(
            allText(*m_view->terminal()).contains(QStringLiteral("sbw-guest: ready")), 180'000);
    }

    void typedCommandRunsInTheConsoleShell()
    {
        // The console shell starts right after the ready line; a command typed before it
        // opened the tty is lost, so type again until the answer shows (at most 90 s).
        sbw::TerminalWidget* terminal = m_view->terminal();
        terminal->setFocus();
        QElapsedTimer timer;
        timer.start();
        bool answered = false;
        while (!answered && timer.elapsed() < 90'000) {
            QTest::keyClicks(terminal, QStringLiteral("echo hi-$((6*7))"));
            QTest::keyClick(terminal, Qt::Key_Return);
            answered = QTest::qWaitFor(
                [&] { return allText(*terminal).contains(QStringLiteral("\nhi-42")); }, 10'000);
        }
        const QString text = allText(*terminal);
        QVERIFY2(answered, qPrintable(text.right(2000)));
        QVERIFY(text.contains(QStringLiteral("echo hi-$((6*7))")));
        const QString png = QDir::temp().filePath(QStringLiteral("tst_serialconsole.png"));
        m_view->grab().save(png);
        qInfo("rendered: %s", qPrintable(png));
    }

    void destroyingTheDomainEndsTheStream()
    {
        QSignalSpy ended(m_view->stream(), &sbw::ConsoleStream::ended);
        virDomainPtr domain = virDomainLookupByName(m_connection->handle(),
                                                    m_sandbox->domainName().toUtf8().constData());
        QVERIFY(domain);
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(virDomainDestroy(domain), 0);
        virDomainFree(domain);

        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30'000);
        qInfo("stream ended %lld ms after virDomainDestroy: %s", qint64(timer.elapsed()),
              qPrintable(ended.at(0).at(0).toString()));
        QVERIFY(!m_view->isAttached());
        QTRY_COMPARE_WITH_TIMEOUT(m_view->statusText(),
                                  QStringLiteral("console closed: guest destroyed"), 10'000);

        // Typing into a closed console goes nowhere and does not block.
        QTest::keyClicks(m_view->terminal(), QStringLiteral("ls\r"));
        QCOMPARE(ended.count(), 1);

        // Reattaching to a domain that is gone says why.
        m_view->reopen();
        QVERIFY(m_view->statusText().startsWith(
            QStringLiteral("console not attached: cannot open the serial console of %1: ")
                .arg(m_sandbox->domainName())));
    }

    void cleanupTestCase()
    {
        m_view.reset();
        m_sandbox.reset();
    }
};

QTEST_MAIN(TestSerialConsole)
#include "tst_serialconsole.moc"
