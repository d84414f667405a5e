// The guest browser's plain parts, without a guest: the DevTools endpoint parsed from what the
// start command prints (DevToolsActivePort's two lines) and refused in any other shape, and the
// checks BrowserPage makes on an agent's arguments before any of
// them reaches the page (element references, key names, addresses).

#include "browser/BrowserLaunch.h"
#include "browser/BrowserPage.h"

#include <QtTest>

using namespace sbw;

class TestBrowserLaunch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseEndpointReadsPortAndPath()
    {
        const auto endpoint = browser_launch::parseEndpoint("38097\n/devtools/browser/07a5");
        QVERIFY2(endpoint.ok(), qPrintable(endpoint.ok() ? QString() : endpoint.error().message));
        QCOMPARE(endpoint->port, quint16(38097));
        QCOMPARE(endpoint->path, QByteArray("/devtools/browser/07a5"));
    }

    void parseEndpointAcceptsTheStartCommandsFinalNewline()
    {
        // ensureRunningCommand() ends in `cat DevToolsActivePort`, which has no final newline,
        // but an SSH session or a CRLF-writing shell may add line ends of its own.
        const auto endpoint = browser_launch::parseEndpoint("9222\r\n/devtools/browser/a-b-c\r\n");
        QVERIFY(endpoint.ok());
        QCOMPARE(endpoint->port, quint16(9222));
        QCOMPARE(endpoint->path, QByteArray("/devtools/browser/a-b-c"));
    }

    void parseEndpointRefusesOtherOutput_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QString>("printed"); ///< how the message shows the output
        QTest::newRow("port without path") << QByteArray("38097\n") << QStringLiteral("38097⏎");
        QTest::newRow("port 0") << QByteArray("0\n/devtools/browser/07a5")
                                << QStringLiteral("0⏎/devtools/browser/07a5 (+1 line)");
        QTest::newRow("port 70000") << QByteArray("70000\n/devtools/browser/07a5")
                                    << QStringLiteral("70000⏎/devtools/browser/07a5 (+1 line)");
        QTest::newRow("garbage") << QByteArray("sh: 1: cat: Permission denied")
                                 << QStringLiteral("sh: 1: cat: Permission denied");
        QTest::newRow("nothing") << QByteArray() << QString();
        QTest::newRow("path not the browser's") << QByteArray("38097\n/devtools/page/07a5")
                                                 << QStringLiteral("38097⏎/devtools/page/07a5 (+1 line)");
        QTest::newRow("third line") << QByteArray("38097\n/devtools/browser/07a5\nextra")
                                    << QStringLiteral("38097⏎/devtools/browser/07a5⏎extra (+2 lines)");
        // What the guest printed reaches a person's status line: a terminal escape is shown,
        // not obeyed.
        QTest::newRow("escape sequence") << QByteArray("\x1b[2J38097") << QStringLiteral("\\x1b[2J38097");
    }

    void parseEndpointRefusesOtherOutput()
    {
        QFETCH(QByteArray, output);
        QFETCH(QString, printed);
        const auto endpoint = browser_launch::parseEndpoint(output);
        QVERIFY(!endpoint.ok());
        QVERIFY2(endpoint.error().message.startsWith(QStringLiteral("the browser did not report its DevTools port")),
                 qPrintable(endpoint.error().message));
        QCOMPARE(endpoint.error().message,
                 QStringLiteral("the browser did not report its DevTools port (it printed \"%1\")").arg(printed));
    }

    void isReferenceAcceptsOnlyEAndUpToSixDigits_data()
    {
        QTest::addColumn<QString>("ref");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("e1") << QStringLiteral("e1") << true;
        QTest::newRow("e123456") << QStringLiteral("e123456") << true;
        QTest::newRow("e") << QStringLiteral("e") << false;
        QTest::newRow("e1234567") << QStringLiteral("e1234567") << false;
        QTest::newRow("x1") << QStringLiteral("x1") << false;
        // The reference goes into a CSS selector ([data-sbw-ref="%1"]): a quote must not.
        QTest::newRow("selector break-out") << QStringLiteral("e1\"]") << false;
        // "$" alone would match before a final newline, which would end the selector's
        // script string.
        QTest::newRow("trailing newline") << QStringLiteral("e1\n") << false;
        QTest::newRow("upper case") << QStringLiteral("E1") << false;
        QTest::newRow("empty") << QString() << false;
    }

    void isReferenceAcceptsOnlyEAndUpToSixDigits()
    {
        QFETCH(QString, ref);
        QFETCH(bool, accepted);
        QCOMPARE(BrowserPage::isReference(ref), accepted);
    }

    void isKnownKeyAcceptsNamedKeysAndOnePrintableCharacter_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("Enter") << QStringLiteral("Enter") << true;
        QTest::newRow("a") << QStringLiteral("a") << true;
        QTest::newRow("ArrowUp") << QStringLiteral("ArrowUp") << true;
        QTest::newRow("Space") << QStringLiteral("Space") << true;
        QTest::newRow("F13") << QStringLiteral("F13") << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("ab") << QStringLiteral("ab") << false;
        QTest::newRow("enter (case)") << QStringLiteral("enter") << false;
        QTest::newRow("control character") << QStringLiteral("\x1b") << false;
    }

    void isKnownKeyAcceptsNamedKeysAndOnePrintableCharacter()
    {
        QFETCH(QString, key);
        QFETCH(bool, accepted);
        QCOMPARE(BrowserPage::isKnownKey(key), accepted);
    }

    void isNavigableUrlAcceptsWebAndFileAddressesOnly_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("https") << QStringLiteral("https://example.org/") << true;
        QTest::newRow("http with port") << QStringLiteral("http://10.0.2.2:8000/x") << true;
        QTest::newRow("file") << QStringLiteral("file:///root/form.html") << true;
        QTest::newRow("about:blank") << QStringLiteral("about:blank") << true;
        // Schemes that run script in the page or open the browser's own pages: an agent's
        // navigate must not become code execution or a settings change.
        QTest::newRow("javascript") << QStringLiteral("javascript:alert(1)") << false;
        QTest::newRow("chrome") << QStringLiteral("chrome://settings") << false;
        QTest::newRow("data") << QStringLiteral("data:text/html,x") << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("about other than blank") << QStringLiteral("about:config") << false;
        QTest::newRow("no scheme") << QStringLiteral("example.org") << false;
        QTest::newRow("trailing newline") << QStringLiteral("https://example.org/\n") << false;
    }

    void isNavigableUrlAcceptsWebAndFileAddressesOnly()
    {
        QFETCH(QString, url);
        QFETCH(bool, accepted);
        QCOMPARE(BrowserPage::isNavigableUrl(url), accepted);
    }
};

QTEST_GUILESS_MAIN(TestBrowserLaunch)
#include "tst_browserlaunch.moc"
