#pragma once

#include "EphemeralRun.h"
#include "Expected.h"
#include "RunController.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;

namespace sbw {

class CommandLog;

class HypervisorConnection;
class OutputView;
class RunSandboxPage;

/// The ephemeral-run pane: a script editor with its language and timeout, Run and Cancel, a
/// status line (phase while running, then the outcome with boot and script time) and the
/// run's tabs, editor and tabs split vertically: Output (the output view), Terminal (login
/// shells in the run's microVM while its script runs) and Files (its /root/run over SFTP).
/// Owns the RunController of its runs.
class RunPane : public QWidget
{
    Q_OBJECT

public:
    explicit RunPane(HypervisorConnection* connection, QWidget* parent = nullptr);
    ~RunPane() override;

    bool isRunning() const;
    /// Logs each run from now on as a person's Run row in `log`.
    void setCommandLog(std::shared_ptr<CommandLog> log) { m_log = std::move(log); }
    /// True after cancel() until the run's finished() arrives.
    bool isCancelling() const { return m_cancelling; }

    QString script() const;
    void setScript(const QString& text);
    Language language() const;
    void setLanguage(Language language);
    std::chrono::seconds timeout() const;
    void setTimeout(std::chrono::seconds timeout);

    /// Reads a script file into the editor and picks the language from its name (".sh" and
    /// ".bash" → Shell, otherwise Python). Errors are readable sentences.
    Expected<void> loadScript(const QString& path);

    /// The status line as shown.
    QString statusText() const;
    /// The outcome of the last finished run, with its complete output.
    const std::optional<RunResult>& lastResult() const { return m_lastResult; }

    QPlainTextEdit* editor() const { return m_editor; }
    OutputView* outputView() const { return m_output; }
    /// Output, Terminal and Files.
    QTabWidget* runTabs() const { return m_runTabs; }
    /// The Terminal tab; its content is a TerminalTabs.
    RunSandboxPage* terminalPage() const { return m_terminalPage; }
    /// The Files tab; its content is a WorkspaceFilesPage.
    RunSandboxPage* filesPage() const { return m_filesPage; }
    QPushButton* runButton() const { return m_runButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }

    static QString defaultScript(Language language);

public Q_SLOTS:
    /// Starts the script in a fresh microVM; false if a run is in progress.
    bool run();
    /// Asks the run in progress to stop; runFinished() follows once its VM is gone.
    void cancel();

Q_SIGNALS:
    void runningChanged(bool running);
    /// A run started, was asked to cancel, or finished: enablement of actions may change.
    void stateChanged();
    void runFinished(const sbw::RunResult& result);

private:
    void buildLayout();
    void onPhaseChanged(sbw::RunPhase phase);
    void onResultReady(const sbw::RunResult& result);
    void onFinished(const sbw::RunResult& result);
    void onLanguageChanged();
    void setStatus(const QString& text, const QIcon& icon);
    void updateProgressStatus();
    void updateEnabled();

    RunController* m_controller;
    std::shared_ptr<CommandLog> m_log;
    QComboBox* m_languageBox = nullptr;
    QSpinBox* m_timeoutBox = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPlainTextEdit* m_editor = nullptr;
    QSplitter* m_splitter = nullptr;
    QLabel* m_statusIcon = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_busyBar = nullptr;
    OutputView* m_output = nullptr;
    QTabWidget* m_runTabs = nullptr;
    RunSandboxPage* m_terminalPage = nullptr;
    RunSandboxPage* m_filesPage = nullptr;

    Language m_shownLanguage = Language::Python;
    RunPhase m_phase = RunPhase::Connecting;
    bool m_cancelling = false;
    std::optional<RunResult> m_scriptResult; ///< set from resultReady() until finished()
    QElapsedTimer m_elapsed;
    QTimer m_tick;
    std::optional<RunResult> m_lastResult;
};

} // namespace sbw
