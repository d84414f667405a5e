// The Browser tab on a real guest made from the browser image, with an agent in the same
// process (the workbench's MCP tools behind a gate, as in the window): the agent opens a form,
// the tab shows its frames and title; the person takes over, and the agent's next step is
// refused with the person's name; the person clicks the field, types and clicks the button in
// the view; after Hand Back the agent reads the result the person made. Every step is a row
// with the page before and after it, and a file the page downloads lands in /root/Downloads.
#include "GatedMcpServer.h"
#include "TestEnvironment.h"
#include "approval/Policy.h"
#include "browser/BrowserHold.h"
#include "browser/BrowserView.h"
#include "browser/WorkspaceBrowserPage.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "workspace/Workspace.h"

#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace std::chrono_literals;

namespace {

const QString kWorkspace = QStringLiteral("browser-tab-test");
const QString kForm = QStringLiteral("file:///root/form.html");

/// The form at fixed places (CSS pixels), so the test knows where to click in the view: a blue
/// block, the field, the button, and a link that downloads a file.
const QByteArray kFormPage =
    "<!doctype html><html><head><title>Form</title><style>"
    "body{margin:0} #block{position:absolute;left:0;top:0;width:1280px;height:200px;background:#2050c0}"
    "#name{position:absolute;left:100px;top:300px;width:300px;height:40px}"
    "#send{position:absolute;left:100px;top:400px;width:200px;height:50px}"
    "#out{position:absolute;left:100px;top:500px}"
    "#get{position:absolute;left:100px;top:600px}"
    "</style></head><body><div id=\"block\"></div><input id=\"name\">"
    "<button id=\"send\" onclick=\"document.getElementById('out').textContent = 'Hello, ' + "
    "document.getElementById('name').value + '!'\">Send</button><p id=\"out\"></p>"
    "<a id=\"get\" href=\"data:text/plain,downloaded%20by%20the%20page\" download=\"note.txt\">Get note</a>"
    "</body></html>\n";

QString text(const QJsonObject& result)
{
    return result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString();
}

QJsonObject structured(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject();
}

} // namespace

class TestBrowserTab : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::shared_ptr<sbw::Workspace> m_workspace;
    std::shared_ptr<sbw::CommandLog> m_log;

    QByteArray exec(const QByteArray& command, const QByteArray& input = {})
    {
        sbw::ExecRequest request;
        request.command = command;
        request.stdinData = input;
        QByteArray out;
        request.onStdout = [&](QByteArrayView bytes) { out += bytes; };
        const auto status = m_workspace->exec(request, std::chrono::steady_clock::now() + 120s);
        return status ? out : QByteArray("exec failed: ") + status.error().message.toUtf8();
    }

    /// Calls `tool` as the agent and waits for its answer.
    static QJsonObject agentCall(sbw::test::GatedMcpServer& agent, int id, const QString& tool, QJsonObject arguments)
    {
        arguments.insert(QStringLiteral("workspace"), kWorkspace);
        agent.call(id, tool, arguments);
        if (!QTest::qWaitFor([&] { return agent.answer.has_value(); }, 300000))
            return {{QStringLiteral("isError"), true}, {QStringLiteral("timedOut"), true}};
        return *agent.answer;
    }

    /// Whether `image` has a dark (text) pixel in `rect`.
    static bool hasDarkPixel(const QImage& image, const QRect& rect)
    {
        for (int y = rect.top(); y <= rect.bottom(); ++y)
            for (int x = rect.left(); x <= rect.right(); ++x)
                if (qGray(image.pixel(x, y)) < 100)
                    return true;
        return false;
    }

    /// The point of the view that shows CSS pixel (x, y) of the page (the view shows the
    /// 1280 × 800 viewport at half size).
    static QPoint at(int x, int y) { return {x / 2, y / 2}; }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        if (auto old = sbw::Workspace::open(*m_connection, kWorkspace))
            QVERIFY(old.value()->remove().ok());
        sbw::WorkspaceSettings settings;
        settings.recipe = QStringLiteral("browser");
        settings.memoryMiB = 1024;
        auto created = sbw::Workspace::create(*m_connection, kWorkspace, settings);
        QVERIFY2(created.ok(), qPrintable(created ? QString() : created.error().message));
        m_workspace = std::move(created.value());
        QVERIFY(m_workspace->start().ok());
        QCOMPARE(exec("cat >/root/form.html && echo put", kFormPage), QByteArray("put\n"));
        QCOMPARE(exec("cat >/root/other.html && echo put", "<!doctype html><title>Other</title><h1>Other</h1>\n"),
                 QByteArray("put\n"));
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("log.sqlite")));
        QVERIFY(log.ok());
        m_log = log.value();
    }

    void cleanupTestCase()
    {
        if (m_workspace)
            QVERIFY(m_workspace->remove().ok());
    }

    void personWatchesTakesOverAndHandsBack()
    {
        auto policy = sbw::Policy::parse(R"({"version": 1, "default": [{"decision": "allow"}]})", QStringLiteral("policy"));
        QVERIFY(policy.ok());
        sbw::test::GatedMcpServer agent(m_connection.get(), policy.value(), m_log);
        agent.initialize(QStringLiteral("browsing-agent"));
        QVERIFY(agent.answer);

        sbw::WorkspaceBrowserPage tab(kWorkspace, [this] { return m_workspace; }, QStringLiteral("alice"));
        tab.setCommandLog(m_log);
        tab.view()->setFixedSize(640, 400);
        tab.resize(800, 600);
        tab.show();
        QSignalSpy frames(&tab, &sbw::WorkspaceBrowserPage::frameShown);
        tab.connectToBrowser();
        QTRY_VERIFY_WITH_TIMEOUT(!frames.isEmpty(), 240000);
        QCOMPARE(tab.statusText(), QStringLiteral("Watching. Take Over to click, type and navigate yourself."));

        // The agent opens the form; the tab, watching, shows it: its title, its address, and a
        // frame with the blue block where the page has it.
        const QJsonObject opened = agentCall(agent, 2, QStringLiteral("browser_navigate"), {{QStringLiteral("url"), kForm}});
        QVERIFY2(!opened.value(QLatin1String("isError")).toBool(), qPrintable(text(opened)));
        QTRY_COMPARE_WITH_TIMEOUT(tab.pageTitle(), QStringLiteral("Form"), 60000);
        QCOMPARE(tab.addressLine()->text(), kForm);
        QTRY_VERIFY_WITH_TIMEOUT(tab.view()->grab().toImage().pixelColor(at(640, 100)).blue() > 150, 60000);
        const QImage shown = tab.view()->grab().toImage();
        const QColor block = shown.pixelColor(at(640, 100));
        QVERIFY2(qAbs(block.red() - 0x20) < 24 && qAbs(block.green() - 0x50) < 24 && qAbs(block.blue() - 0xc0) < 24,
                 qPrintable(block.name()));
        const QColor below = shown.pixelColor(at(1000, 700));
        QVERIFY2(below.red() > 230 && below.green() > 230 && below.blue() > 230, qPrintable(below.name())); // the page's white
        QVERIFY(tab.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/browsertab-watching.png")));

        // Watching, the view takes no input.
        QVERIFY(!tab.view()->isInteractive());
        QVERIFY(tab.addressLine()->isReadOnly());

        // The person takes over: the agents' steps are refused with the person's name.
        QTest::mouseClick(tab.takeOverButton(), Qt::LeftButton);
        QCOMPARE(sbw::browser_hold::heldBy(kWorkspace), QStringLiteral("alice"));
        QCOMPARE(tab.takeOverButton()->text(), QStringLiteral("Hand Back"));
        QVERIFY(tab.view()->isInteractive());
        const QJsonObject refused = agentCall(agent, 3, QStringLiteral("browser_text"), {});
        QVERIFY(refused.value(QLatin1String("isError")).toBool());
        QCOMPARE(text(refused), QStringLiteral("denied: alice has taken over the browser in the window; browser steps are "
                                               "refused until they hand it back"));

        // The person clicks the field, types, and clicks the button, in the view. The keys come
        // while the click runs, so they join one type step.
        QSignalSpy steps(&tab, &sbw::WorkspaceBrowserPage::stepFinished);
        QTest::mouseClick(tab.view(), Qt::LeftButton, {}, at(250, 320));
        QTest::keyClicks(tab.view(), QStringLiteral("Ada"));
        QTest::mouseClick(tab.view(), Qt::LeftButton, {}, at(200, 424));
        QTRY_VERIFY_WITH_TIMEOUT(!tab.isStepPending(), 120000);
        QStringList done;
        for (const QList<QVariant>& step : steps)
            done << step.at(0).toString() + QStringLiteral(" | ") + step.at(1).toString();
        QCOMPARE(done, QStringList({QStringLiteral("click at 250,320 on %1 | ").arg(kForm),
                                    QStringLiteral("type \"Ada\" on %1 | ").arg(kForm),
                                    QStringLiteral("click at 200,424 on %1 | ").arg(kForm)}));
        // The view shows what the button wrote: dark text where the page's paragraph is.
        QTRY_VERIFY_WITH_TIMEOUT(hasDarkPixel(tab.view()->grab().toImage(), QRect(at(100, 500), at(220, 524))), 60000);
        QVERIFY(tab.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/browsertab-held.png")));

        // Hand Back: the agent reads what the person made.
        QTest::mouseClick(tab.takeOverButton(), Qt::LeftButton);
        QCOMPARE(sbw::browser_hold::heldBy(kWorkspace), QString());
        QVERIFY(!tab.view()->isInteractive());
        const QJsonObject read = agentCall(agent, 4, QStringLiteral("browser_text"), {});
        QVERIFY2(!read.value(QLatin1String("isError")).toBool(), qPrintable(text(read)));
        QCOMPARE(structured(read).value(QLatin1String("text")).toString(),
                 QStringLiteral("[e1] input text \"\" value=\"Ada\"\n[e2] button \"Send\"\nHello, Ada!\n"
                                "[e3] a \"Get note\" -> data:text/plain,downloaded%20by%20the%20page"));

        // A download the agent starts lands in the guest's Downloads folder (the Files tab's
        // /root/Downloads).
        const QJsonObject clicked = agentCall(agent, 5, QStringLiteral("browser_click"), {{QStringLiteral("ref"), QStringLiteral("e3")}});
        QVERIFY2(!clicked.value(QLatin1String("isError")).toBool(), qPrintable(text(clicked)));
        QTRY_COMPARE_WITH_TIMEOUT(exec("cat /root/Downloads/note.txt 2>/dev/null"), QByteArray("downloaded by the page"), 60000);

        // The log: the agent's and the person's steps in order, each with the page around it.
        sbw::LogFilter filter;
        filter.sandbox = kWorkspace;
        filter.kind = sbw::ActionKind::Browse;
        const auto rows = m_log->rows(filter);
        QVERIFY(rows.ok());
        QStringList story;
        for (const sbw::ActionRecord& row : rows.value())
            story.prepend(QStringLiteral("%1 | %2 | %3 | %4 -> %5%6")
                              .arg(row.actor.display(), row.command, sbw::outcomeName(row.outcome), row.urlBefore, row.urlAfter,
                                   row.error.isEmpty() ? QString() : QStringLiteral(" | ") + row.error));
        const QString same = QStringLiteral("%1 -> %1").arg(kForm);
        QCOMPARE(story, QStringList({
                            QStringLiteral("agent (browsing-agent) | navigate %1 | succeeded | about:blank -> %1").arg(kForm),
                            QStringLiteral("person | take over on %1 | succeeded | %2").arg(kForm, same),
                            QStringLiteral("agent (browsing-agent) | read text on %1 | denied | %2 | alice has taken over the "
                                           "browser in the window; browser steps are refused until they hand it back")
                                .arg(kForm, same),
                            QStringLiteral("person | click at 250,320 on %1 | succeeded | %2").arg(kForm, same),
                            QStringLiteral("person | type \"Ada\" on %1 | succeeded | %2").arg(kForm, same),
                            QStringLiteral("person | click at 200,424 on %1 | succeeded | %2").arg(kForm, same),
                            QStringLiteral("person | hand back on %1 | succeeded | %2").arg(kForm, same),
                            QStringLiteral("agent (browsing-agent) | read text on %1 | succeeded | %2").arg(kForm, same),
                            QStringLiteral("agent (browsing-agent) | click e3 on %1 | succeeded | %2").arg(kForm, same),
                        }));

        // A hidden tab shows no frames (it stops the screencast, which this does not observe:
        // frames still in flight are dropped too); shown again, it shows the page as it is now.
        tab.hide();
        frames.clear();
        const QJsonObject other =
            agentCall(agent, 6, QStringLiteral("browser_navigate"), {{QStringLiteral("url"), QStringLiteral("file:///root/other.html")}});
        QVERIFY2(!other.value(QLatin1String("isError")).toBool(), qPrintable(text(other)));
        QCOMPARE(frames.size(), 0);
        tab.show();
        QTRY_VERIFY_WITH_TIMEOUT(!frames.isEmpty(), 60000);
        QCOMPARE(tab.pageTitle(), QStringLiteral("Other"));
    }
};

QTEST_MAIN(TestBrowserTab)
#include "tst_browsertab.moc"
