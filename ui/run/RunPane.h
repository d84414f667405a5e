#pragma once

#include "base/Expected.h"
#include "run/EphemeralRun.h"
#include "run/RunController.h"

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
class QScrollArea;
class QSettings;
class QSplitter;
class QTabWidget;

namespace sbw {

class CommandLog;

class ArtifactsView;
class HypervisorConnection;
class ImageTemplateBox;
class InputFilesList;
class OutputView;
class RunHistory;
class RunLimitsEditor;
class RunGuestTab;

/// The ephemeral-run pane: a script editor with its language, timeout and limits
/// (RunLimitsEditor), Run and Cancel, the run's input files (InputFilesList; files dropped on the pane are added), a status line
/// (phase while running, then the outcome with boot and script time) and the run's tabs,
/// editor and tabs split vertically: Output (the output view, and under it the files the run
/// gave back: pictures, CSV tables, other files to open or save — ArtifactsView), Terminal
/// (login shells in the run's microVM while its script runs), Files (its /root/run over SFTP)
/// and History (earlier runs and their files, RunHistory). Owns the RunController of its runs.
class RunPane : public QWidget
{
    Q_OBJECT

public:
    explicit RunPane(HypervisorConnection* connection, QWidget* parent = nullptr);
    ~RunPane() override;

    bool isRunning() const;
    /// Logs each run from now on as a person's Run row in `log`.
    void setCommandLog(std::shared_ptr<CommandLog> log);
    /// Runs from now on go to the host of `connection` and take a pre-booted microVM from
    /// `pool` when it holds one of their limits and image (RunController::setHost). The status
    /// line names `hostName` ("… · on 127.0.0.1"); empty for the window's first host.
    void setHost(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool, const QString& hostName);
    /// True after cancel() until the run's finished() arrives.
    bool isCancelling() const { return m_cancelling; }

    QString script() const;
    void setScript(const QString& text);
    Language language() const;
    void setLanguage(Language language);
    std::chrono::seconds timeout() const;
    void setTimeout(std::chrono::seconds timeout);
    /// The image template (recipe name) runs boot from; "minimal" at first. A template that is
    /// not built yet is built when Run is pressed (ImageBuildDialog), and the run then starts.
    QString image() const;
    void setImage(const QString& recipe);
    /// vCPUs, memory, disk, CPU share, lifetime and output cap of the next run.
    RunLimitsEditor* limitsEditor() const { return m_limits; }
    /// What run() starts: script, language, timeout, the limits, input files, the log.
    RunOptions runOptions() const;

    /// Keeps the language, image template, timeout and limits in `settings` (group "run"), so
    /// that the next window starts with what the last one ran with; restoreSettings() shows
    /// them again (an image template that is gone is left out).
    void saveSettings(QSettings& settings) const;
    void restoreSettings(QSettings& settings);

    /// Reads a script file into the editor and picks the language from its name (".sh" and
    /// ".bash" → Shell, otherwise Python). Errors are readable sentences.
    Expected<void> loadScript(const QString& path);

    /// The input files of the next run (host paths).
    QStringList inputFiles() const;
    /// Adds local files to the input files (as a drop does); returns how many were added.
    int addInputFiles(const QStringList& paths);

    /// The status line as shown.
    QString statusText() const;
    /// The outcome of the last finished run, with its complete output.
    const std::optional<RunResult>& lastResult() const { return m_lastResult; }

    QPlainTextEdit* editor() const { return m_editor; }
    OutputView* outputView() const { return m_output; }
    /// Output, Terminal and Files.
    QTabWidget* runTabs() const { return m_runTabs; }
    /// The Terminal tab; its content is a TerminalTabs.
    RunGuestTab* terminalPage() const { return m_terminalPage; }
    /// The Files tab; its content is a WorkspaceFilesPage.
    RunGuestTab* filesPage() const { return m_filesPage; }
    InputFilesList* inputFilesList() const { return m_inputFiles; }
    /// The files the last run gave back, under the output.
    ArtifactsView* artifactsView() const { return m_artifacts; }
    /// The History tab.
    RunHistory* history() const { return m_history; }
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

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildLayout();
    void showArtifacts(const sbw::RunResult& result);
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
    ImageTemplateBox* m_imageBox = nullptr;
    QSpinBox* m_timeoutBox = nullptr;
    RunLimitsEditor* m_limits = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QPlainTextEdit* m_editor = nullptr;
    QSplitter* m_splitter = nullptr;
    QLabel* m_statusIcon = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_busyBar = nullptr;
    OutputView* m_output = nullptr;
    QTabWidget* m_runTabs = nullptr;
    RunGuestTab* m_terminalPage = nullptr;
    RunGuestTab* m_filesPage = nullptr;
    InputFilesList* m_inputFiles = nullptr;
    ArtifactsView* m_artifacts = nullptr;
    QScrollArea* m_artifactsScroll = nullptr;
    QSplitter* m_outputSplitter = nullptr;
    RunHistory* m_history = nullptr;

    Language m_shownLanguage = Language::Python;
    RunPhase m_phase = RunPhase::Connecting;
    /// What the current phase is at, when it says more than its name: the queue position
    /// while Queued, the upload while Preparing stages the image.
    QString m_phaseDetail;
    QString m_hostName; ///< setHost()'s, for the status line
    /// `text`, naming the runs' host when it is not the window's first.
    QString onHost(const QString& text) const;
    bool m_cancelling = false;
    std::optional<RunResult> m_scriptResult; ///< set from resultReady() until finished()
    QElapsedTimer m_elapsed;
    QTimer m_tick;
    std::optional<RunResult> m_lastResult;
};

} // namespace sbw
