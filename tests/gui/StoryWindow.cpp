#include "StoryWindow.h"

#include "McpAgent.h"
#include "TestEnvironment.h"
#include "base/DataPaths.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLogPane.h"
#include "window/MainWindow.h"
#include "workbench/Workbench.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QSettings>
#include <QTest>

namespace sbw::test {

StoryWindow::StoryWindow() = default;

StoryWindow::~StoryWindow()
{
    close();
}

QString StoryWindow::open(const std::function<void()>& beforeWorkbench)
{
    if (!mcpClientInstalled())
        return QStringLiteral("the MCP SDK is not installed: run `npm ci --prefix tests/mcp` (packaging/setup.sh does)");
    const QString manifest = paths::imagesDir() + QStringLiteral("/minimal/manifest.json");
    if (!QFileInfo::exists(manifest))
        return QStringLiteral("no guest image at %1: build it with packaging/guest/build-image.sh minimal").arg(manifest);
    qputenv("XDG_DATA_HOME", m_home.filePath(QStringLiteral("data")).toUtf8());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_home.filePath(QStringLiteral("settings")));
    m_connection = std::make_unique<HypervisorConnection>(guestUri());
    if (auto opened = m_connection->ensureOpen(); !opened)
        return opened.error().message;
    if (beforeWorkbench)
        beforeWorkbench();

    m_workbench = std::make_unique<Workbench>(m_connection.get());
    m_window = std::make_unique<MainWindow>(m_workbench.get());
    m_window->resize(1280, 800);
    m_window->show();
    if (!QTest::qWaitForWindowActive(m_window.get()))
        return QStringLiteral("the window did not become active");
    auto* logDock = m_window->findChild<QDockWidget*>(QStringLiteral("commandLogDock"));
    if (!logDock)
        return QStringLiteral("the window has no command log dock");
    logDock->toggleViewAction()->trigger(); // View ▸ Command Log
    m_log = qobject_cast<CommandLogPane*>(logDock->widget());
    return m_log ? QString() : QStringLiteral("the command log cannot be opened");
}

void StoryWindow::close()
{
    m_log = nullptr;
    m_window.reset();
    m_workbench.reset();
}

bool StoryWindow::saveScreenshot(const QString& name) const
{
    const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return true;
    QTest::qWait(100); // layouts settle
    return m_window->grab().save(dir + QLatin1Char('/') + name);
}

} // namespace sbw::test
