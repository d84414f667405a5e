#pragma once

#include <QMainWindow>

class QAction;

namespace sbw {

class ConnectionStatusLabel;
class HypervisorConnection;
class RunPane;
struct RunResult;

/// The workbench window: menus (File, Run, Help), a toolbar with Run and Cancel, the run pane
/// in the middle and the connection with its accelerator in the status bar.
///
/// Closing the window during a run cancels the run, shows "Cleaning up…" and closes once the
/// run's VM is destroyed, without blocking the GUI thread meanwhile. `connection` must outlive
/// the window.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(HypervisorConnection* connection, QWidget* parent = nullptr);
    ~MainWindow() override;

    RunPane* runPane() const { return m_runPane; }
    ConnectionStatusLabel* connectionStatus() const { return m_connectionStatus; }
    /// True while a close waits for the run's clean-up.
    bool isClosePending() const { return m_closePending; }

public Q_SLOTS:
    /// Asks for a script file and loads it into the editor.
    void openScript();
    void saveStdout();
    void saveStderr();
    void showAbout();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createMenus();
    void createToolBar();
    void updateActions();
    void onRunFinished(const RunResult& result);
    void saveBytes(const QByteArray& bytes, const QString& title, const QString& suggestedName);

    HypervisorConnection* m_connection;
    RunPane* m_runPane;
    ConnectionStatusLabel* m_connectionStatus;
    QAction* m_openAction = nullptr;
    QAction* m_saveStdoutAction = nullptr;
    QAction* m_saveStderrAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_aboutAction = nullptr;
    bool m_closePending = false;
};

} // namespace sbw
