#include "run/RunPane.h"

#include "base/DataPaths.h"
#include "files/WorkspaceFilesPage.h"
#include "guest/GuestSession.h"
#include "guest/SftpClient.h"
#include "image/ImageBuildDialog.h"
#include "image/ImageTemplateBox.h"
#include "run/ArtifactsView.h"
#include "run/InputFilesList.h"
#include "run/RunGuestTab.h"
#include "run/RunHistory.h"
#include "run/RunLimitsEditor.h"
#include "terminal/TerminalTabs.h"
#include "widgets/MonospaceFont.h"
#include "widgets/OutputView.h"
#include "widgets/RunStatusText.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>
#include <thread>

namespace sbw {
namespace {

constexpr qint64 kMaxScriptBytes = 16 * 1024 * 1024;
/// The script's working folder in the guest (see runEphemeral()).
const QByteArray kRunFolder = QByteArrayLiteral("/root/run");

QWidget* makeRunTerminals(const RunGuestTab::SessionProvider& provider)
{
    // Recordings of every run's terminals share one folder; their names carry the time. A run's
    // guest is gone when its session ends, and its shells with it.
    auto* tabs = new TerminalTabs(QStringLiteral("ephemeral-runs"), provider,
                                  TerminalTab::Lifetime::Connection);
    tabs->openTerminal();
    return tabs;
}

QWidget* makeRunFiles(const RunGuestTab::SessionProvider& provider)
{
    return new WorkspaceFilesPage(
        [provider]() -> Expected<std::shared_ptr<SftpClient>> {
            auto session = provider();
            if (!session)
                return session.error();
            auto sftp = session.value()->openSftp();
            if (!sftp)
                return sftp.error();
            std::shared_ptr<SftpClient> client = std::move(sftp.value());
            // The script's own command makes its folder, a moment after the guest is ready.
            for (int i = 0; i < 50 && !client->stat(kRunFolder) && provider(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return client;
        },
        kRunFolder);
}

} // namespace

RunPane::RunPane(HypervisorConnection* connection, QWidget* parent)
    : QWidget(parent), m_controller(new RunController(connection, this))
{
    buildLayout();

    connect(m_controller, &RunController::phaseChanged, this, &RunPane::onPhaseChanged);
    connect(m_controller, &RunController::queued, this, [this](int ahead, int max) {
        m_phaseDetail = queuedText(ahead, max);
        updateProgressStatus();
    });
    connect(m_controller, &RunController::staging, this, [this](qint64 sent, qint64 total) {
        m_phaseDetail = stagingText(sent, total);
        updateProgressStatus();
    });
    connect(m_controller, &RunController::outputReceived, m_output, &OutputView::appendOutput);
    connect(m_controller, &RunController::resultReady, this, &RunPane::onResultReady);
    connect(m_controller, &RunController::sessionReady, this,
            [this](std::shared_ptr<GuestSession> session) {
                m_terminalPage->setSession(session);
                m_filesPage->setSession(session);
            });
    connect(m_controller, &RunController::finished, this, &RunPane::onFinished);
    connect(m_runButton, &QPushButton::clicked, this, &RunPane::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &RunPane::cancel);
    connect(m_languageBox, &QComboBox::currentIndexChanged, this, &RunPane::onLanguageChanged);

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &RunPane::updateProgressStatus);

    setScript(defaultScript(Language::Python));
    setStatus(tr("Ready. Run the script in a fresh microVM with Ctrl+Return."), {});
    updateEnabled();
}

RunPane::~RunPane() = default;

void RunPane::buildLayout()
{
    // Controls: language, timeout, Run, Cancel.
    m_languageBox = new QComboBox(this);
    m_languageBox->setObjectName(QStringLiteral("languageBox"));
    m_languageBox->addItem(tr("Python"), int(Language::Python));
    m_languageBox->addItem(tr("Shell"), int(Language::Shell));
    m_languageBox->setToolTip(tr("Interpreter: python3 or sh, in the guest"));

    m_timeoutBox = new QSpinBox(this);
    m_timeoutBox->setObjectName(QStringLiteral("timeoutBox"));
    m_timeoutBox->setRange(0, 24 * 3600);
    m_timeoutBox->setValue(60);
    m_timeoutBox->setSuffix(tr(" s"));
    m_timeoutBox->setSpecialValueText(tr("No limit"));
    m_timeoutBox->setToolTip(tr("Wall-clock limit of the script; it is killed when it expires"));

    m_imageBox = new ImageTemplateBox(this);
    m_imageBox->setObjectName(QStringLiteral("imageBox"));
    m_imageBox->setToolTip(tr("Image template the microVM boots from (sbw image list)"));

    auto* languageLabel = new QLabel(tr("&Language:"), this);
    languageLabel->setBuddy(m_languageBox);
    auto* imageLabel = new QLabel(tr("Ima&ge:"), this);
    imageLabel->setBuddy(m_imageBox);
    auto* timeoutLabel = new QLabel(tr("&Timeout:"), this);
    timeoutLabel->setBuddy(m_timeoutBox);

    m_runButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Run"), this);
    m_runButton->setObjectName(QStringLiteral("runButton"));
    m_runButton->setToolTip(tr("Run the script in a fresh microVM (Ctrl+Return)"));
    m_runButton->setDefault(true);
    m_cancelButton =
        new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("&Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setToolTip(tr("Stop the run and destroy its microVM (Esc)"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(languageLabel);
    controls->addWidget(m_languageBox);
    controls->addSpacing(12);
    controls->addWidget(imageLabel);
    controls->addWidget(m_imageBox);
    controls->addSpacing(12);
    controls->addWidget(timeoutLabel);
    controls->addWidget(m_timeoutBox);
    controls->addStretch(1);
    controls->addWidget(m_runButton);
    controls->addWidget(m_cancelButton);

    // Script editor.
    m_editor = new QPlainTextEdit(this);
    m_editor->setObjectName(QStringLiteral("scriptEditor"));
    const QFont fixed = monospaceFont();
    m_editor->setFont(fixed);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setTabStopDistance(4 * QFontMetricsF(fixed).horizontalAdvance(QLatin1Char(' ')));
    m_editor->setPlaceholderText(tr("Script to run in the microVM"));

    // Status line and output.
    m_statusIcon = new QLabel(this);
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_statusIcon->setFixedSize(iconSize, iconSize);
    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("statusLine"));
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_statusLabel->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_busyBar = new QProgressBar(this);
    m_busyBar->setRange(0, 0);
    m_busyBar->setTextVisible(false);
    m_busyBar->setMaximumWidth(96);
    m_busyBar->setMaximumHeight(iconSize);
    m_busyBar->hide();

    auto* statusRow = new QHBoxLayout;
    statusRow->setSpacing(6);
    statusRow->addWidget(m_statusIcon, 0, Qt::AlignTop);
    statusRow->addWidget(m_statusLabel, 1);
    statusRow->addWidget(m_busyBar, 0, Qt::AlignVCenter);

    m_output = new OutputView(this);
    m_artifacts = new ArtifactsView;
    m_artifacts->setObjectName(QStringLiteral("runArtifacts"));
    m_artifactsScroll = new QScrollArea(this);
    m_artifactsScroll->setWidgetResizable(true);
    m_artifactsScroll->setWidget(m_artifacts);
    m_artifactsScroll->hide();
    m_outputSplitter = new QSplitter(Qt::Vertical, this);
    m_outputSplitter->setObjectName(QStringLiteral("outputSplitter"));
    m_outputSplitter->setChildrenCollapsible(false);
    m_outputSplitter->addWidget(m_output);
    m_outputSplitter->addWidget(m_artifactsScroll);
    m_outputSplitter->setStretchFactor(0, 1);
    m_outputSplitter->setStretchFactor(1, 3);
    m_history = new RunHistory(this);
    m_terminalPage = new RunGuestTab(makeRunTerminals, tr("terminals"), RunGuestTab::AfterEnd::KeepUsable, this);
    m_filesPage = new RunGuestTab(makeRunFiles, tr("files"), RunGuestTab::AfterEnd::Disable, this);
    m_runTabs = new QTabWidget(this);
    m_runTabs->setObjectName(QStringLiteral("runTabs"));
    m_runTabs->setDocumentMode(true);
    m_runTabs->addTab(m_outputSplitter, tr("Output"));
    m_runTabs->addTab(m_terminalPage, tr("Terminal"));
    m_runTabs->addTab(m_filesPage, tr("Files"));
    m_runTabs->addTab(m_history, tr("History"));
    m_runTabs->setTabToolTip(3, tr("Earlier runs and the files they gave back"));
    m_runTabs->setTabToolTip(1, tr("Login shells in the run's microVM while its script runs"));
    m_runTabs->setTabToolTip(2, tr("The run's folder %1 in its microVM while its script runs")
                                    .arg(QString::fromLatin1(kRunFolder)));

    auto* outputPanel = new QWidget(this);
    auto* outputLayout = new QVBoxLayout(outputPanel);
    outputLayout->setContentsMargins(0, 4, 0, 0);
    outputLayout->setSpacing(4);
    outputLayout->addLayout(statusRow);
    outputLayout->addWidget(m_runTabs, 1);

    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setObjectName(QStringLiteral("runSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_editor);
    m_splitter->addWidget(outputPanel);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);

    m_inputFiles = new InputFilesList(this);
    setAcceptDrops(true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(6);
    layout->addLayout(controls);
    m_limits = new RunLimitsEditor(this);
    m_limits->setObjectName(QStringLiteral("runLimits"));
    layout->addWidget(m_limits);
    layout->addWidget(m_inputFiles);
    layout->addWidget(m_splitter, 1);
}

QString RunPane::defaultScript(Language language)
{
    switch (language) {
    case Language::Python:
        return QStringLiteral("print(\"Hello from the sandbox\")\n");
    case Language::Shell:
        return QStringLiteral("echo \"Hello from the sandbox\"\n");
    }
    return {};
}

bool RunPane::isRunning() const
{
    return m_controller->isRunning();
}

QString RunPane::script() const
{
    return m_editor->toPlainText();
}

void RunPane::setScript(const QString& text)
{
    m_editor->setPlainText(text);
}

Language RunPane::language() const
{
    return Language(m_languageBox->currentData().toInt());
}

void RunPane::setLanguage(Language language)
{
    m_languageBox->setCurrentIndex(m_languageBox->findData(int(language)));
}

std::chrono::seconds RunPane::timeout() const
{
    return std::chrono::seconds(m_timeoutBox->value());
}

void RunPane::setTimeout(std::chrono::seconds timeout)
{
    m_timeoutBox->setValue(int(timeout.count()));
}

QString RunPane::image() const
{
    return m_imageBox->currentRecipe();
}

void RunPane::setImage(const QString& recipe)
{
    m_imageBox->setCurrentRecipe(recipe);
}

void RunPane::saveSettings(QSettings& settings) const
{
    settings.beginGroup(QStringLiteral("run"));
    settings.setValue(QStringLiteral("language"), int(language()));
    settings.setValue(QStringLiteral("image"), image());
    settings.setValue(QStringLiteral("timeout"), m_timeoutBox->value());
    settings.beginGroup(QStringLiteral("limits"));
    m_limits->save(settings);
    settings.endGroup();
    settings.endGroup();
}

void RunPane::restoreSettings(QSettings& settings)
{
    settings.beginGroup(QStringLiteral("run"));
    bool ok = false;
    if (const int language = settings.value(QStringLiteral("language")).toInt(&ok);
        ok && m_languageBox->findData(language) >= 0)
        setLanguage(Language(language));
    if (const QString recipe = settings.value(QStringLiteral("image")).toString();
        m_imageBox->findData(recipe) >= 0)
        setImage(recipe);
    if (const int seconds = settings.value(QStringLiteral("timeout")).toInt(&ok); ok)
        m_timeoutBox->setValue(seconds);
    settings.beginGroup(QStringLiteral("limits"));
    m_limits->restore(settings);
    settings.endGroup();
    settings.endGroup();
}

Expected<void> RunPane::loadScript(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(tr("Cannot open %1: %2").arg(path, file.errorString()));
    if (file.size() > kMaxScriptBytes)
        return makeError(tr("%1 is larger than 16 MiB; that is not a script.").arg(path));
    const QByteArray bytes = file.readAll();
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool shell = suffix == QLatin1String("sh") || suffix == QLatin1String("bash");
    // Set the language first so its default script does not replace the loaded one.
    setLanguage(shell ? Language::Shell : Language::Python);
    setScript(QString::fromUtf8(bytes));
    return {};
}

void RunPane::setCommandLog(std::shared_ptr<CommandLog> log)
{
    m_log = log;
    m_history->setCommandLog(std::move(log));
}

void RunPane::setHost(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool, const QString& hostName)
{
    m_controller->setHost(connection, std::move(pool));
    m_hostName = hostName;
}

QString RunPane::onHost(const QString& text) const
{
    return m_hostName.isEmpty() ? text : tr("%1 · on %2").arg(text, m_hostName);
}

QStringList RunPane::inputFiles() const
{
    return m_inputFiles->files();
}

int RunPane::addInputFiles(const QStringList& paths)
{
    return m_inputFiles->addFiles(paths);
}

namespace {

QStringList localFiles(const QMimeData* mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl& url : mime->urls()) {
        if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
            paths << url.toLocalFile();
    }
    return paths;
}

} // namespace

void RunPane::dragEnterEvent(QDragEnterEvent* event)
{
    if (!localFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void RunPane::dropEvent(QDropEvent* event)
{
    if (addInputFiles(localFiles(event->mimeData())) > 0)
        event->acceptProposedAction();
}

void RunPane::showArtifacts(const RunResult& result)
{
    if (result.artifacts.isEmpty() && result.artifactsNote.isEmpty()) {
        m_artifacts->clear();
        m_artifactsScroll->hide();
        return;
    }
    m_artifacts->setArtifacts(result.artifacts, result.artifactsNote,
                              tr("Files the script wrote to out/"));
    if (m_artifactsScroll->isHidden()) {
        m_artifactsScroll->show();
        // The files get three quarters of the tab; the output keeps the rest.
        const int height = m_outputSplitter->height();
        m_outputSplitter->setSizes({height / 4, height - height / 4});
    }
}

void RunPane::onLanguageChanged()
{
    const Language next = language();
    const QString current = script();
    if (current.trimmed().isEmpty() || current == defaultScript(m_shownLanguage))
        setScript(defaultScript(next));
    m_shownLanguage = next;
}

RunOptions RunPane::runOptions() const
{
    RunOptions options;
    options.language = language();
    options.code = script().toUtf8();
    if (!options.code.endsWith('\n'))
        options.code.append('\n');
    options.timeout = timeout();
    m_limits->applyTo(options);
    options.sandbox.recipe = m_imageBox->currentRecipe();
    options.log = m_log;
    options.inputFiles = inputFiles();
    return options;
}

bool RunPane::run()
{
    if (isRunning())
        return false;
    const RunOptions options = runOptions();
    if (!QFileInfo::exists(paths::imagesDir() + QLatin1Char('/') + options.sandbox.recipe
                           + QLatin1String("/manifest.json"))) {
        // Built on first use; the run starts when the build has finished.
        ImageBuildDialog::ensureBuilt(this, options.sandbox.recipe, [this] {
            m_imageBox->reload();
            run();
        });
        return false;
    }

    m_output->clearOutput();
    m_artifacts->clear();
    m_artifactsScroll->hide();
    m_lastResult.reset();
    m_cancelling = false;
    m_scriptResult.reset();
    if (!m_controller->start(options))
        return false;
    m_terminalPage->runStarted();
    m_filesPage->runStarted();
    m_phase = RunPhase::Connecting;
    m_phaseDetail.clear();
    m_elapsed.start();
    m_tick.start();
    m_busyBar->show();
    updateProgressStatus();
    updateEnabled();
    Q_EMIT runningChanged(true);
    Q_EMIT stateChanged();
    return true;
}

void RunPane::cancel()
{
    if (!isRunning() || m_cancelling)
        return;
    m_cancelling = true;
    m_controller->cancel();
    updateProgressStatus();
    updateEnabled();
    Q_EMIT stateChanged();
}

void RunPane::onPhaseChanged(RunPhase phase)
{
    if (phase == RunPhase::Finished)
        return;
    m_phase = phase;
    m_phaseDetail.clear();
    if (phase == RunPhase::CleaningUp) {
        m_terminalPage->runEnded();
        m_filesPage->runEnded();
    }
    m_elapsed.restart(); // the seconds shown count the current phase: boot and script apart
    updateProgressStatus();
}

void RunPane::onResultReady(const RunResult& result)
{
    m_scriptResult = result;
    showArtifacts(result);
    updateProgressStatus();
}

void RunPane::updateProgressStatus()
{
    if (!isRunning())
        return;
    if (m_scriptResult) {
        // The outcome is known; only the microVM's teardown is left.
        setStatus(onHost(resultText(*m_scriptResult)) + tr(" · destroying the microVM…"), {});
        return;
    }
    QString text = m_phaseDetail.isEmpty() ? phaseText(m_phase) : m_phaseDetail;
    if (m_cancelling && m_phase != RunPhase::CleaningUp)
        text = tr("Cancelling…");
    text = onHost(text);
    const qint64 seconds = m_elapsed.elapsed() / 1000;
    if (seconds > 0)
        text += tr("  %1 s").arg(seconds);
    setStatus(text, {});
}

void RunPane::onFinished(const RunResult& result)
{
    m_tick.stop();
    m_busyBar->hide();
    m_cancelling = false;
    m_output->endOutput();
    m_terminalPage->runEnded();
    m_filesPage->runEnded();
    if (!result.error.isEmpty())
        m_output->appendNote(tr("The workbench could not complete the run: %1").arg(result.error));
    m_lastResult = result;
    showArtifacts(result);
    if (m_history->isVisible())
        m_history->refresh();

    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxWarning;
    switch (resultKind(result)) {
    case ResultKind::Success:
        icon = QStyle::SP_DialogApplyButton;
        break;
    case ResultKind::Warning:
        icon = QStyle::SP_MessageBoxWarning;
        break;
    case ResultKind::Failure:
        icon = QStyle::SP_MessageBoxCritical;
        break;
    }
    setStatus(onHost(resultText(result)), style()->standardIcon(icon));
    updateEnabled();
    Q_EMIT runningChanged(false);
    Q_EMIT stateChanged();
    Q_EMIT runFinished(result);
}

void RunPane::setStatus(const QString& text, const QIcon& icon)
{
    m_statusLabel->setText(text);
    const int size = m_statusIcon->width();
    m_statusIcon->setPixmap(icon.isNull() ? QPixmap() : icon.pixmap(size, size));
}

QString RunPane::statusText() const
{
    return m_statusLabel->text();
}

void RunPane::updateEnabled()
{
    const bool running = isRunning();
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running && !m_cancelling);
}

} // namespace sbw
