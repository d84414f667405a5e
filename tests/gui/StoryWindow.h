#pragma once

#include <QString>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace sbw {
class CommandLogPane;
class HypervisorConnection;
class MainWindow;
class Workbench;
} // namespace sbw

namespace sbw::test {

/// The real main window of a story test, as the program makes it: its own data and settings
/// (XDG_DATA_HOME and QSettings in a temporary folder; guest images stay in the shared cache),
/// a libvirt connection to the guests' URI, the Workbench, and the MainWindow at 1280×800 with
/// View ▸ Command Log open.
class StoryWindow
{
public:
    StoryWindow();
    ~StoryWindow();

    /// Opens it all; `beforeWorkbench` runs once the data folder and the connection are set,
    /// before the workbench reads them (a policy file, leftovers to remove). Returns what is
    /// missing or failed (the MCP SDK, the guest image, libvirt, the window); empty when ready.
    QString open(const std::function<void()>& beforeWorkbench = {});
    /// Closes the window, then the workbench (which outlives the window, as in the program).
    void close();

    MainWindow* window() const { return m_window.get(); }
    CommandLogPane* log() const { return m_log; }
    HypervisorConnection* connection() const { return m_connection.get(); }

    /// Saves the window to $SBW_SCREENSHOT_DIR/`name` when that is set; false when saving failed.
    bool saveScreenshot(const QString& name) const;

private:
    QTemporaryDir m_home;
    std::unique_ptr<HypervisorConnection> m_connection;
    std::unique_ptr<Workbench> m_workbench;
    std::unique_ptr<MainWindow> m_window;
    CommandLogPane* m_log = nullptr;
};

} // namespace sbw::test
