#include "CliRun.h"

#include "base/WriteAll.h"
#include "capacity/QueuePosition.h"
#include "run/RunController.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <unistd.h>

namespace sbw {
namespace {

void note(const QString& text)
{
    writeAll(STDERR_FILENO, "sbw: " + text.toUtf8() + '\n');
}

} // namespace

CliRun::CliRun(HypervisorConnection* connection, bool verbose, QObject* parent)
    : QObject(parent), m_controller(new RunController(connection, this)), m_verbose(verbose)
{
    connect(m_controller, &RunController::outputReceived, this,
            [](OutputStream stream, const QByteArray& bytes) {
                // A closed pipe drops the output: its reader is gone, the run goes on to clean up.
                writeAll(stream == OutputStream::Stdout ? STDOUT_FILENO : STDERR_FILENO, bytes);
            });
    connect(m_controller, &RunController::phaseChanged, this, &CliRun::onPhase);
    connect(m_controller, &RunController::queued, this, [this](int ahead, int max) {
        if (m_verbose)
            note(QStringLiteral("queued: ") + queuePositionText(ahead, max));
    });
    // A new host's first run waits for the upload for seconds: a line for each tenth.
    connect(m_controller, &RunController::staging, this, [this](qint64 sent, qint64 total) {
        if (m_verbose)
            note(stagingText(sent, total) + QStringLiteral("…"));
    });
    connect(m_controller, &RunController::finished, this, &CliRun::onFinished);
    // The microVM is destroyed as usual on the first signal. The third one abandons the
    // clean-up (libvirt still destroys the domain when this process goes; its disk is removed
    // by a later run).
    connect(&m_termination, &TerminationSignals::received, this, [this](int, int count) {
        if (count == 1)
            note(QStringLiteral("cancelling; destroying the microVM (Ctrl-C twice more to abandon it)"));
        m_controller->cancel();
    });
}

void CliRun::start(const RunOptions& options)
{
    m_controller->start(options);
}

void CliRun::onPhase(RunPhase phase)
{
    // A queued run's line is its place in the queue (queued()), not the phase's name.
    if (m_verbose && phase != RunPhase::Finished && phase != RunPhase::Queued)
        note(phaseName(phase) + QStringLiteral("…"));
}

void CliRun::onFinished(const RunResult& result)
{
    if (!result.error.isEmpty())
        note(QStringLiteral("error: ") + result.error);
    else if (result.timedOut || result.cancelled || result.limit || result.signal || m_verbose)
        note(result.summary());
    if (!result.artifactsNote.isEmpty())
        note(QStringLiteral("artifacts: ") + result.artifactsNote);
    const bool copied = m_outputFolder.isEmpty() || copyArtifacts(result);
    if (m_verbose)
        note(QStringLiteral("%1%2 %3 ms, script %4 ms, total %5 ms (domain %6)")
                 .arg(result.queuedMs > 0 ? QStringLiteral("queued %1 ms, ").arg(result.queuedMs) : QString())
                 .arg(result.preBooted  ? QStringLiteral("resume")
                      : result.restored ? QStringLiteral("restore")
                                        : QStringLiteral("boot"))
                 .arg(result.bootMs)
                 .arg(result.wallMs)
                 .arg(result.totalMs)
                 .arg(result.domainName));
    if (m_verbose && !result.artifactsFolder.isEmpty())
        note(QStringLiteral("artifacts kept in %1").arg(result.artifactsFolder));
    QCoreApplication::exit(copied ? result.cliExitCode() : RunResult::kWorkbenchError);
}

bool CliRun::copyArtifacts(const RunResult& result)
{
    for (const RunArtifact& artifact : result.artifacts) {
        const QString target = QDir(m_outputFolder).absoluteFilePath(artifact.name);
        QFile::remove(target);
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(artifact.hostPath, target)) {
            note(QStringLiteral("error: cannot copy the artifact %1 to %2").arg(artifact.name, target));
            return false;
        }
        const QString size = artifact.size == 1 ? QStringLiteral("1 byte") : QStringLiteral("%1 bytes").arg(artifact.size);
        note(QStringLiteral("artifact %1, %2: %3").arg(artifact.name, size, target));
    }
    return true;
}

} // namespace sbw
